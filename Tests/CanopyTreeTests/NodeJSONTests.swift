import CanopyTree
import Testing

@Suite struct NodeJSONTests {
    private func leaf(_ value: LeafValue, _ priority: LeafValue? = nil) -> Node {
        Node(leaf: value, priority: priority)
    }

    private func children(_ entries: [(ChildKey, Node)], _ priority: LeafValue? = nil) -> Node {
        Node(children: ChildMap(entries), priority: priority)
    }

    // MARK: JSON → Node

    @Test func scalars() throws {
        #expect(try Node(json: .null).isEmpty)
        #expect(try Node(json: .bool(true)) == leaf(.bool(true)))
        #expect(try Node(json: .int(-7)) == leaf(.int(-7)))
        #expect(try Node(json: .double(2.5)) == leaf(.double(2.5)))
        #expect(try Node(json: .string("")) == leaf(.string("")))
        // Booleans are never numbers.
        #expect(try Node(json: .bool(true)) != leaf(.int(1)))
    }

    @Test func protocolExample() throws {
        // protocol.md §1.6
        let json = JSONValue.keyed([
            "a": .keyed([".value": .int(1), ".priority": .int(5)]),
            ".priority": .string("p"),
            "b": .bool(true),
        ])
        let node = try Node(json: json)
        #expect(node == children([("a", leaf(.int(1), .int(5))), ("b", leaf(.bool(true)))], .string("p")))
        #expect(node.priority == .string("p"))
        #expect(node.child("a").priority == .int(5))
    }

    @Test func arraysBecomeIndexedChildrenWithNullsDropped() throws {
        let node = try Node(json: .array([.string("x"), .null, .string("z"), .keyed([:])]))
        #expect(node == children([("0", leaf(.string("x"))), ("2", leaf(.string("z")))]))
        #expect(try Node(json: .array([])).isEmpty)
        #expect(try Node(json: .array([.null, .null])).isEmpty)
    }

    @Test func empties() throws {
        #expect(try Node(json: .keyed([:])).isEmpty)
        #expect(try Node(json: .keyed(["a": .null])).isEmpty)
        #expect(try Node(json: .keyed(["a": .keyed(["b": .keyed([:])])])).isEmpty)
        #expect(try Node(json: .keyed(["a": .null, "b": .int(1)])) == children([("b", leaf(.int(1)))]))
    }

    @Test func priorityOnEmptyIsDropped() throws {
        let node = try Node(json: .keyed([".priority": .int(3)]))
        #expect(node.isEmpty)
        #expect(node.priority == nil)
        #expect(try Node(json: .keyed([".priority": .int(3), "a": .null])) == .empty)
        #expect(try Node(json: .keyed([".value": .null, ".priority": .string("p")])) == .empty)
    }

    @Test func valueWithPriorityOnLeaf() throws {
        #expect(
            try Node(json: .keyed([".value": .string("v"), ".priority": .double(1.5)]))
                == leaf(.string("v"), .double(1.5)))
        #expect(try Node(json: .keyed([".priority": .null, ".value": .int(1)])) == leaf(.int(1)))
        // A `.value` object becomes children with the outer priority.
        #expect(
            try Node(json: .keyed([".value": .keyed(["c": .int(1)]), ".priority": .int(1)]))
                == children([("c", leaf(.int(1)))], .int(1)))
    }

    @Test func otherDotKeysAreIgnored() throws {
        let node = try Node(json: .keyed([".meta": .int(1), "a": .int(2), ".foo": .keyed(["x": .int(1)])]))
        #expect(node == children([("a", leaf(.int(2)))]))
        #expect(try Node(json: .keyed([".meta": .int(1)])).isEmpty)
    }

    @Test func repeatedKeyLastWins() throws {
        #expect(
            try Node(json: .object([JSONMember("a", .int(1)), JSONMember("a", .int(2))]))
                == children([("a", leaf(.int(2)))]))
    }

    @Test func serverValuePlaceholders() throws {
        #expect(try Node(json: .keyed([".sv": .string("timestamp")])) == leaf(.serverValue(.timestamp)))
        #expect(try Node(json: .keyed([".sv": .keyed(["increment": .int(3)])])) == leaf(.serverValue(.incrementInt(3))))
        #expect(
            try Node(json: .keyed([".sv": .keyed(["increment": .double(-0.5)])]))
                == leaf(.serverValue(.incrementDouble(-0.5))))
        // With a priority, inside `.value`, and as a priority.
        #expect(
            try Node(json: .keyed([".sv": .string("timestamp"), ".priority": .int(1)]))
                == leaf(.serverValue(.timestamp), .int(1)))
        #expect(
            try Node(json: .keyed([".value": .keyed([".sv": .string("timestamp")])])) == leaf(.serverValue(.timestamp)))
        #expect(
            try Node(json: .keyed(["a": .int(1), ".priority": .keyed([".sv": .string("timestamp")])]))
                == children([("a", leaf(.int(1)))], .serverValue(.timestamp)))
    }

    @Test(arguments: [
        JSONValue.string("now"),
        .keyed(["increment": .string("1")]),
        .keyed(["increment": .int(1), "extra": .int(2)]),
        .keyed(["decrement": .int(1)]),
        .int(1),
        .null,
        .array([]),
    ])
    func unknownServerValuesAreRejected(_ content: JSONValue) {
        #expect(throws: TreeError.self) {
            try Node(json: .keyed(["a": .keyed(["b": .keyed([".sv": content])])]))
        }
        do {
            _ = try Node(json: .keyed(["a": .keyed(["b": .keyed([".sv": content])])]))
        } catch {
            guard case .invalidServerValue(let path, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == "/a/b")
            #expect(error.message.contains("/a/b"))
        }
    }

    @Test func placeholderWithChildrenIsRejected() {
        #expect(throws: TreeError.invalidServerValue(path: "/", found: "a placeholder object with other children")) {
            try Node(json: .keyed([".sv": .string("timestamp"), "a": .int(1)]))
        }
    }

    @Test func valueCombinedWithChildrenIsRejected() {
        #expect(throws: TreeError.valueWithChildren(path: "/x")) {
            try Node(json: .keyed(["x": .keyed([".value": .int(1), "a": .int(2)])]))
        }
        let error = TreeError.valueWithChildren(path: "/x")
        #expect(error.message.contains("/x"))
    }

    @Test(arguments: [JSONValue.bool(true), .keyed(["a": .int(1)]), .array([.int(1)])])
    func invalidPriorities(_ priority: JSONValue) {
        do {
            _ = try Node(json: .keyed(["k": .keyed([".value": .int(1), ".priority": priority])]))
            Issue.record("accepted priority \(priority)")
        } catch {
            guard case .invalidPriority(let path, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == "/k/.priority")
            #expect(error.message.contains("/k/.priority"))
        }
    }

    @Test func nonFiniteNumbersAreRejected() {
        #expect(throws: TreeError.nonFiniteNumber(path: "/a/1")) {
            try Node(json: .keyed(["a": .array([.int(0), .double(.nan)])]))
        }
        #expect(throws: TreeError.nonFiniteNumber(path: "/.priority")) {
            try Node(json: .keyed([".value": .int(1), ".priority": .double(.infinity)]))
        }
        #expect(throws: TreeError.self) {
            try Node(json: .keyed([".sv": .keyed(["increment": .double(-.infinity)])]))
        }
    }

    // MARK: Node → JSON

    @Test func exportForm() throws {
        let node = children(
            [
                ("b", leaf(.bool(true))),
                ("a", leaf(.int(1), .int(5))),
                ("c", children([("x", leaf(.string("y")))], .string("q"))),
            ], .string("p"))
        let expected = JSONValue.keyed([
            "a": .keyed([".value": .int(1), ".priority": .int(5)]),
            "b": .bool(true),
            "c": .keyed(["x": .string("y"), ".priority": .string("q")]),
            ".priority": .string("p"),
        ])
        #expect(node.exportJSON() == expected)
        #expect(try Node(json: expected) == node)
        #expect(Node.empty.exportJSON() == .null)
        #expect(leaf(.serverValue(.timestamp)).exportJSON() == .keyed([".sv": .string("timestamp")]))
    }

    @Test func exportNeverProducesArraysAndUsesKeyOrder() throws {
        let node = try Node(
            json: .array([
                .string("a"), .string("b"), .string("c"), .string("d"),
                .string("e"), .string("f"), .string("g"), .string("h"),
                .string("i"), .string("j"), .string("k"),
            ]))
        guard case .object(let members) = node.exportJSON() else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map(\.key) == ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"])
    }

    @Test func plainValueDropsPriorities() throws {
        let node = try Node(
            json: .keyed([
                "a": .keyed([".value": .int(1), ".priority": .int(5)]),
                ".priority": .string("p"),
                "b": .bool(true),
            ]))
        #expect(node.valueJSON() == .keyed(["a": .int(1), "b": .bool(true)]))
        #expect(Node.empty.valueJSON() == .null)
        #expect(leaf(.string("s"), .int(1)).valueJSON() == .string("s"))
    }

    @Test func arrayRule() throws {
        func plain(_ json: JSONValue) throws -> JSONValue { try Node(json: json).valueJSON() }
        // "0","1","3": 4 < 2 × 3, so an array with a null slot.
        #expect(
            try plain(.keyed(["0": .string("a"), "1": .string("b"), "3": .string("d")]))
                == .array([.string("a"), .string("b"), .null, .string("d")]))
        // {"1", "5"}: 5 ≥ 2 × 2, not an array.
        #expect(try plain(.keyed(["1": .int(1), "5": .int(5)])) == .keyed(["1": .int(1), "5": .int(5)]))
        // {"1"}: 1 < 2 × 1, an array with a null first slot.
        #expect(try plain(.keyed(["1": .int(1)])) == .array([.null, .int(1)]))
        // {"2"}: 2 ≥ 2, not an array.
        #expect(try plain(.keyed(["2": .int(1)])) == .keyed(["2": .int(1)]))
        // Leading zeros are not canonical.
        #expect(try plain(.keyed(["0": .int(0), "01": .int(1)])) == .keyed(["0": .int(0), "01": .int(1)]))
        // Negative keys and non-integer keys.
        #expect(try plain(.keyed(["0": .int(0), "-1": .int(1)])) == .keyed(["-1": .int(1), "0": .int(0)]))
        #expect(try plain(.keyed(["0": .int(0), "a": .int(1)])) == .keyed(["0": .int(0), "a": .int(1)]))
        // Huge index keys are never arrays.
        #expect(
            try plain(.keyed(["0": .int(0), "99999999999999999999": .int(1)]))
                == .keyed(["0": .int(0), "99999999999999999999": .int(1)]))
        // Nested arrays round-trip.
        #expect(
            try plain(.array([.array([.int(1), .int(2)]), .keyed(["x": .array([.bool(false)])])]))
                == .array([.array([.int(1), .int(2)]), .keyed(["x": .array([.bool(false)])])]))
        // Priorities do not affect the array decision.
        #expect(
            try plain(.keyed(["0": .keyed([".value": .int(1), ".priority": .int(9)]), ".priority": .int(1)]))
                == .array([.int(1)]))
    }

    @Test func plainValueOfPlaceholder() {
        #expect(leaf(.serverValue(.incrementInt(2))).valueJSON() == .keyed([".sv": .keyed(["increment": .int(2)])]))
    }
}
