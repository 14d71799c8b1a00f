import CanopyStorage
import CanopyTestSupport
import CanopyTree
import Foundation
import Testing

/// Behaviour every `TreeStore` backend must share, checked against `Node` semantics.
@Suite struct TreeStoreConformanceTests {
    static let sample = tree([
        (
            "users",
            tree([
                ("alice", tree([("name", leaf("Alice")), ("age", leaf(31))], priority: .int(2))),
                ("bob", tree([("name", leaf("Bob")), ("admin", leaf(.bool(true)))])),
            ])
        ),
        ("score", leaf(.double(9.5), priority: .string("high"))),
        ("list", tree([("0", leaf("a")), ("1", leaf("b")), ("10", leaf("c")), ("2", leaf("d"))])),
    ])

    @Test(arguments: Backend.allCases)
    func emptyStoreReadsEmpty(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        #expect(try fixture.store.read(at: .root) == .empty)
        #expect(try fixture.store.read(at: "a/b/c") == .empty)
        #expect(fixture.store.stats() == TreeStoreStats(leafCount: 0, byteSize: 0))
    }

    @Test(arguments: Backend.allCases)
    func overwriteAtRootReadsBackEverywhere(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: .root, with: Self.sample)
        #expect(try fixture.store.read(at: .root) == Self.sample)
        for path: Path in [
            "users", "users/alice", "users/alice/name", "score", "list", "list/10", "missing", "score/x",
        ] {
            #expect(try fixture.store.read(at: path) == Self.sample.child(at: path), "at \(path)")
        }
        #expect(fixture.store.stats() == TreeStoreStats(tree: Self.sample))
        #expect(fixture.store.stats().leafCount == 9)
    }

    @Test(arguments: Backend.allCases)
    func overwriteAtDeepPathCreatesAncestorsAndKeepsSiblings(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: .root, with: Self.sample)
        try fixture.store.overwrite(at: "users/carol/address/city", with: leaf("Lyon"))
        try fixture.store.overwrite(at: "users/alice", with: tree([("nick", leaf("al"))]))
        var expected = Self.sample.updating(at: "users/carol/address/city", leaf("Lyon"))
        expected = expected.updating(at: "users/alice", tree([("nick", leaf("al"))]))
        #expect(try fixture.store.read(at: .root) == expected)
        #expect(try fixture.store.read(at: "users/carol") == tree([("address", tree([("city", leaf("Lyon"))]))]))
        #expect(try fixture.store.read(at: "users/alice") == tree([("nick", leaf("al"))]))
        #expect(fixture.store.stats() == TreeStoreStats(tree: expected))
    }

    @Test(arguments: Backend.allCases)
    func writeBelowALeafReplacesTheLeafKeepingItsPriority(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: "a", with: leaf(.string("leaf"), priority: .int(7)))
        try fixture.store.overwrite(at: "b", with: leaf("plain"))
        // An empty write below a leaf changes nothing.
        try fixture.store.overwrite(at: "a/x", with: .empty)
        #expect(try fixture.store.read(at: "a") == leaf(.string("leaf"), priority: .int(7)))
        try fixture.store.overwrite(at: "a/x/y", with: leaf(1))
        try fixture.store.overwrite(at: "b/z", with: leaf(2))
        #expect(try fixture.store.read(at: "a") == tree([("x", tree([("y", leaf(1))]))], priority: .int(7)))
        #expect(try fixture.store.read(at: "b") == tree([("z", leaf(2))]))
        // A root leaf too.
        try fixture.store.overwrite(at: .root, with: leaf("root"))
        try fixture.store.overwrite(at: "k", with: leaf(3))
        #expect(try fixture.store.read(at: .root) == tree([("k", leaf(3))]))
        #expect(fixture.store.stats() == TreeStoreStats(leafCount: 1, byteSize: 2 + 8))
    }

    @Test(arguments: Backend.allCases)
    func emptyNodeDeletesAndEmptiedParentsDisappearWithTheirPriority(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: .root, with: Self.sample)
        try fixture.store.overwrite(at: "users/bob", with: .empty)
        #expect(try fixture.store.read(at: "users/bob") == .empty)
        #expect(try fixture.store.read(at: "users/alice") == Self.sample.child(at: "users/alice"))
        // alice has a priority; removing her last children removes her (and the priority).
        try fixture.store.overwrite(at: "users/alice/name", with: .empty)
        try fixture.store.overwrite(at: "users/alice/age", with: .empty)
        #expect(try fixture.store.read(at: "users") == .empty)
        #expect(try fixture.store.read(at: "users/alice/.priority") == .empty)
        // Re-adding a child does not bring the old priority back.
        try fixture.store.overwrite(at: "users/alice/name", with: leaf("Again"))
        #expect(try fixture.store.read(at: "users/alice") == tree([("name", leaf("Again"))]))
        try fixture.store.overwrite(at: .root, with: .empty)
        #expect(try fixture.store.read(at: .root) == .empty)
        #expect(fixture.store.stats() == TreeStoreStats(leafCount: 0, byteSize: 0))
    }

    @Test(arguments: Backend.allCases)
    func prioritiesAreStoredAndReadBack(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let node = tree(
            [
                ("s", leaf(.string("x"), priority: .string("p"))),
                ("d", leaf(.bool(false), priority: .double(1.5))),
                ("n", tree([("c", leaf(1))], priority: .int(-4))),
                ("t", leaf(.int(3), priority: .serverValue(.timestamp))),
            ], priority: .string("root"))
        try fixture.store.overwrite(at: .root, with: node)
        #expect(try fixture.store.read(at: .root) == node)
        #expect(try fixture.store.read(at: ".priority") == leaf("root"))
        #expect(try fixture.store.read(at: "n/.priority") == leaf(-4))
        #expect(try fixture.store.read(at: "s/.priority") == leaf("p"))
        #expect(try fixture.store.read(at: "n/c/.priority") == .empty)
        #expect(try fixture.store.read(at: "n/.priority/x") == .empty)

        // Set, change and clear priorities through `.priority` paths.
        try fixture.store.overwrite(at: "n/c/.priority", with: leaf(9))
        try fixture.store.overwrite(at: "n/.priority", with: leaf("new"))
        try fixture.store.overwrite(at: "s/.priority", with: .empty)
        try fixture.store.overwrite(at: ".priority", with: .empty)
        // At an empty location a priority write does nothing.
        try fixture.store.overwrite(at: "nothing/.priority", with: leaf(1))
        var expected = node
        for (path, value) in [
            ("n/c/.priority", leaf(9)), ("n/.priority", leaf("new")), ("s/.priority", Node.empty),
            (".priority", Node.empty), ("nothing/.priority", leaf(1)),
        ] {
            expected = expected.updating(at: Path(path), value)
        }
        #expect(try fixture.store.read(at: .root) == expected)
        #expect(
            try fixture.store.read(at: "n") == tree([("c", leaf(.int(1), priority: .int(9)))], priority: .string("new"))
        )
        #expect(try fixture.store.read(at: "nothing") == .empty)
        #expect(fixture.store.stats() == TreeStoreStats(tree: expected))

        // A priority on a children node that had none.
        try fixture.store.overwrite(at: "x/y", with: leaf(1))
        try fixture.store.overwrite(at: "x/.priority", with: leaf(.double(0.25)))
        #expect(try fixture.store.read(at: "x") == tree([("y", leaf(1))], priority: .double(0.25)))
        if backend.isPersistent {
            try fixture.reopen()
            #expect(try fixture.store.read(at: "x") == tree([("y", leaf(1))], priority: .double(0.25)))
            #expect(try fixture.store.read(at: "n/c") == leaf(.int(1), priority: .int(9)))
        }
    }

    @Test(arguments: Backend.allCases)
    func valuesRoundTripExactly(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let node = tree([
            ("max", leaf(.int(.max))), ("min", leaf(.int(.min))), ("zero", leaf(0)),
            ("tenth", leaf(.double(0.1))), ("big", leaf(.double(1e300))),
            ("tiny", leaf(.double(.leastNonzeroMagnitude))),
            ("empty", leaf("")), ("nul", leaf("a\u{0}b")), ("control", leaf("\u{1}\u{2}\u{7F}")),
            ("true", leaf(.bool(true))), ("false", leaf(.bool(false))),
            ("ts", leaf(.serverValue(.timestamp))), ("inc", leaf(.serverValue(.incrementInt(-3)))),
            ("incd", leaf(.serverValue(.incrementDouble(0.5)))),
            ("long", leaf(String(repeating: "xyz✓", count: 5000))),
        ])
        try fixture.store.overwrite(at: "v", with: node)
        #expect(try fixture.store.read(at: "v") == node)
        if case .int(let i)? = try fixture.store.read(at: "v/max").leafValue {
            #expect(i == .max)
        } else {
            Issue.record("an integer came back as another type")
        }
        if case .double(let d)? = try fixture.store.read(at: "v/tenth").leafValue {
            #expect(d == 0.1)
        } else {
            Issue.record("a double came back as another type")
        }
        if backend.isPersistent {
            try fixture.reopen()
            #expect(try fixture.store.read(at: "v") == node)
        }
    }

    @Test(arguments: Backend.allCases)
    func unicodeAndPrefixKeysStaySeparate(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let keys = [
            "a", "ab", "a b", "a\u{1}", "a\u{1}b", "a\u{2}", "\u{1}", "日本語", "é", "e\u{301}", "🌲", "-5", "007", "7", "",
        ]
        for (index, key) in keys.enumerated() {
            try fixture.store.overwrite(at: Path(keys: [ChildKey(key), "v"]), with: leaf(Int64(index)))
        }
        for (index, key) in keys.enumerated() {
            #expect(
                try fixture.store.read(at: Path(keys: [ChildKey(key)])) == tree([("v", leaf(Int64(index)))]),
                "key \(key.debugDescription)")
        }
        let root = try fixture.store.read(at: .root)
        #expect(root.childCount == keys.count)
        try fixture.store.overwrite(at: Path(keys: ["a"]), with: .empty)
        #expect(try fixture.store.read(at: .root).childCount == keys.count - 1)
        #expect(try fixture.store.read(at: Path(keys: ["ab"])) == tree([("v", leaf(1))]))
        #expect(try fixture.store.read(at: Path(keys: ["a\u{1}"])) == tree([("v", leaf(3))]))
        if backend.isPersistent {
            try fixture.reopen()
            #expect(try fixture.store.read(at: Path(keys: ["🌲", "v"])) == leaf(10))
            #expect(try fixture.store.read(at: .root).childCount == keys.count - 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func mergeAppliesEveryChildInOrder(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: .root, with: Self.sample)
        let children: [(Path, Node)] = [
            ("alice/name", leaf("Alicia")),
            ("bob", .empty),
            ("carol", tree([("age", leaf(5))])),
            ("carol/age", leaf(6)),
            ("alice/.priority", leaf(.string("first"))),
        ]
        try fixture.store.merge(at: "users", children: children)
        var expected = Self.sample
        for (path, node) in children { expected = expected.updating(at: Path("users").child(path), node) }
        #expect(try fixture.store.read(at: .root) == expected)
        #expect(try fixture.store.read(at: "users/carol/age") == leaf(6))
        #expect(fixture.store.stats() == TreeStoreStats(tree: expected))
        // A merge at the root with an empty list changes nothing.
        try fixture.store.merge(at: .root, children: [])
        #expect(try fixture.store.read(at: .root) == expected)
    }

    @Test(arguments: Backend.allCases)
    func aRejectedMergeChangesNothing(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: .root, with: Self.sample)
        #expect(throws: StorageError.self) {
            try fixture.store.merge(at: "users", children: [("alice", .empty), ("bob/.priority/x", leaf(1))])
        }
        #expect(throws: StorageError.self) {
            try fixture.store.merge(at: "users", children: [("alice", .empty), ("bob", leaf(.double(.nan)))])
        }
        do {
            try fixture.store.overwrite(at: "a/.priority/b", with: leaf(1))
            Issue.record("a write through .priority was accepted")
        } catch {
            #expect(error.kind == .invalidPath)
        }
        do {
            try fixture.store.overwrite(at: "a", with: leaf(.double(.infinity)))
            Issue.record("an infinite number was accepted")
        } catch {
            #expect(error.kind == .invalidValue)
        }
        #expect(try fixture.store.read(at: .root) == Self.sample)
        if backend.isPersistent {
            try fixture.reopen()
            #expect(try fixture.store.read(at: .root) == Self.sample)
        }
    }

    @Test(arguments: Backend.allCases)
    func reopenShowsAcknowledgedData(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.overwrite(at: .root, with: Self.sample)
        try fixture.store.overwrite(at: "users/dave", with: tree([("x", leaf(1))]))
        try fixture.store.merge(at: "list", children: [("0", .empty), ("3", leaf("e"))])
        let before = try fixture.store.read(at: .root)
        let stats = fixture.store.stats()
        try fixture.reopen()
        if backend.isPersistent {
            #expect(try fixture.store.read(at: .root) == before)
            #expect(fixture.store.stats() == stats)
        } else {
            #expect(try fixture.store.read(at: .root) == .empty)
        }
    }

    @Test(arguments: Backend.allCases)
    func aClosedStoreThrows(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        fixture.store.close()
        fixture.store.close()
        do {
            _ = try fixture.store.read(at: .root)
            Issue.record("a closed store answered a read")
        } catch {
            #expect(error.kind == .closed)
        }
        #expect(throws: StorageError.closed) { try fixture.store.overwrite(at: "a", with: leaf(1)) }
    }

    /// Random writes at random paths, compared with `Node.updating` after every step.
    @Test(arguments: Backend.allCases)
    func randomWritesMatchNodeSemantics(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        var random = SeededGenerator(seed: 0xC0FFEE)
        var expected = Node.empty
        let keys: [ChildKey] = ["a", "b", "ab", "1", "10", "é"]
        func randomPath(maxDepth: Int) -> Path {
            Path(
                keys: (0..<Int.random(in: 0...maxDepth, using: &random)).map { _ in keys.randomElement(using: &random)!
                })
        }
        func randomPriority() -> LeafValue? {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return .int(Int64.random(in: -5...5, using: &random))
            case 1: return .string(keys.randomElement(using: &random)!.string)
            default: return nil
            }
        }
        func randomNode(depth: Int) -> Node {
            switch Int.random(in: 0..<(depth > 2 ? 3 : 6), using: &random) {
            case 0: return .empty
            case 1: return leaf(.int(Int64.random(in: 0...100, using: &random)), priority: randomPriority())
            case 2: return leaf(.string("s\(Int.random(in: 0...9, using: &random))"), priority: randomPriority())
            default:
                let count = Int.random(in: 0...3, using: &random)
                return Node(
                    children: ChildMap(
                        (0..<count).map { _ in (keys.randomElement(using: &random)!, randomNode(depth: depth + 1)) }),
                    priority: randomPriority())
            }
        }
        for step in 0..<300 {
            var path = randomPath(maxDepth: 3)
            var node = randomNode(depth: Int.random(in: 0...3, using: &random))
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                try fixture.store.overwrite(at: path, with: node)
                expected = expected.updating(at: path, node)
            case 5..<7:
                path = path.child(.priority)
                node = Bool.random(using: &random) ? randomPriority().map { leaf($0) } ?? .empty : leaf(1)
                try fixture.store.overwrite(at: path, with: node)
                expected = expected.updating(at: path, node)
            default:
                let children = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    (
                        Bool.random(using: &random)
                            ? randomPath(maxDepth: 2) : randomPath(maxDepth: 1).child(.priority),
                        randomNode(depth: 2)
                    )
                }
                try fixture.store.merge(at: path, children: children)
                for (relative, child) in children { expected = expected.updating(at: path.child(relative), child) }
            }
            #expect(try fixture.store.read(at: .root) == expected, "after step \(step)")
            let probe = randomPath(maxDepth: 3)
            #expect(try fixture.store.read(at: probe) == expected.child(at: probe), "at \(probe) after step \(step)")
            #expect(fixture.store.stats() == TreeStoreStats(tree: expected), "stats after step \(step)")
            if backend.isPersistent && step % 50 == 49 {
                try fixture.reopen()
                #expect(try fixture.store.read(at: .root) == expected, "after reopening at step \(step)")
                #expect(
                    fixture.store.stats() == TreeStoreStats(tree: expected), "stats after reopening at step \(step)")
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func concurrentWritersAllLand(_ backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<20 {
                        let path = Path(keys: [ChildKey("w\(writer)"), ChildKey("i\(index)")])
                        if index % 2 == 0 {
                            try store.overwrite(at: path, with: leaf(Int64(index)))
                        } else {
                            try store.merge(
                                at: Path(keys: [ChildKey("w\(writer)")]),
                                children: [
                                    (Path(keys: [ChildKey("i\(index)")]), leaf(Int64(index))),
                                    ("count", leaf(Int64(index))),
                                ])
                        }
                        _ = try store.read(at: Path(keys: [ChildKey("w\((writer + 1) % 4)")]))
                    }
                }
            }
            try await group.waitForAll()
        }
        for writer in 0..<4 {
            let node = try store.read(at: Path(keys: [ChildKey("w\(writer)")]))
            #expect(node.childCount == 21)
            #expect(node.child("count") == leaf(19))
        }
        #expect(store.stats().leafCount == 4 * 21)
    }
}
