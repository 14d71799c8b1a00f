import CanopyTree
import Testing

@Suite struct TreeValidationTests {
    // MARK: Keys

    @Test(arguments: ["a", "users", "-Nabc", "é", "\u{1F600}", "with space", "a-b_c", "0", "key:colon", "a\u{80}"])
    func validKeys(_ key: String) throws {
        #expect(TreeValidation.isValidKey(key))
        try TreeValidation.validateKey(key)
    }

    @Test(arguments: [
        ("a.b", "."), ("$x", "$"), ("a#", "#"), ("[", "["), ("]", "]"), ("a/b", "/"),
        ("tab\there", "\t"), ("nul\u{0}", "\u{0}"), ("del\u{7F}", "\u{7F}"), ("nl\n", "\n"), ("\u{1F}", "\u{1F}"),
    ])
    func invalidKeys(_ key: String, _ character: String) {
        #expect(!TreeValidation.isValidKey(key))
        do {
            try TreeValidation.validateKey(key, in: "/parent")
            Issue.record("accepted \(key)")
        } catch {
            #expect(error == .invalidKey(key: key, character: character.unicodeScalars.first!, path: "/parent"))
            #expect(error.message.contains("/parent"))
        }
    }

    @Test func invalidKeyMessagesNameKeyAndCharacter() {
        let dot = TreeError.invalidKey(key: "a.b", character: ".", path: "/users")
        #expect(dot.message.contains("\"a.b\""))
        #expect(dot.message.contains("\".\""))
        #expect(dot.message.contains("/users"))
        let control = TreeError.invalidKey(key: "x\u{1}", character: "\u{1}", path: "/")
        #expect(control.message.contains("U+0001"))
        #expect(control.message.contains("x\\u{1}") || control.message.contains("xU+0001"))
        #expect(!control.message.contains("\u{1}"))
    }

    @Test func emptyKey() {
        #expect(!TreeValidation.isValidKey(""))
        #expect(throws: TreeError.emptyKey(path: "/a")) { try TreeValidation.validateKey("", in: "/a") }
    }

    // MARK: Paths

    @Test func readAndWritePaths() throws {
        try TreeValidation.validateReadPath("/users/alice")
        try TreeValidation.validateWritePath("/users/alice")
        try TreeValidation.validateReadPath(.root)
        try TreeValidation.validateWritePath(.root)
        try TreeValidation.validateReadPath("/.info/connected")
        try TreeValidation.validateWritePath("/a/b/.priority")
        try TreeValidation.validateReadPath("/a/.priority")
        try TreeValidation.validateWritePath("/.priority")
    }

    @Test func infoIsNotWritable() {
        #expect(throws: TreeError.infoNotWritable(path: "/.info/connected")) {
            try TreeValidation.validateWritePath("/.info/connected")
        }
        #expect(throws: TreeError.infoNotWritable(path: "/.info")) { try TreeValidation.validateWritePath("/.info") }
        // `.info` only as the first key.
        #expect(throws: TreeError.invalidKey(key: ".info", character: ".", path: "/a")) {
            try TreeValidation.validateReadPath("/a/.info")
        }
    }

    @Test func priorityOnlyLast() {
        #expect(throws: TreeError.invalidPath(path: "/a/.priority/b", reason: ".priority may only be the last key")) {
            try TreeValidation.validateWritePath("/a/.priority/b")
        }
    }

    @Test func invalidKeyInPath() {
        #expect(throws: TreeError.invalidKey(key: "b$", character: "$", path: "/a")) {
            try TreeValidation.validateWritePath("/a/b$/c")
        }
        #expect(throws: TreeError.invalidKey(key: ".value", character: ".", path: "/")) {
            try TreeValidation.validateReadPath("/.value")
        }
    }

    @Test func pathDepth() throws {
        let ok = Path(keys: (0..<32).map { ChildKey("k\($0)") })
        try TreeValidation.validateWritePath(ok)
        try TreeValidation.validateWritePath(ok.child(.priority))
        let deep = ok.child("k32")
        #expect(throws: TreeError.pathTooDeep(path: deep.wireString, depth: 33, limit: 32)) {
            try TreeValidation.validateReadPath(deep)
        }
        #expect(TreeError.pathTooDeep(path: "/p", depth: 33, limit: 32).message.contains("/p"))
    }

    @Test func pathBytes() throws {
        // 3 keys of 255 bytes + 2 separators = 767; one more byte makes 768, then 769.
        let a = String(repeating: "a", count: 255)
        try TreeValidation.validateWritePath(Path(keys: [ChildKey(a), ChildKey(a), ChildKey(a)]))
        try TreeValidation.validateWritePath(Path(keys: [ChildKey(a), ChildKey(a), ChildKey(a + "b")]))
        let long = Path(keys: [ChildKey(a), ChildKey(a), ChildKey(a + "bc")])
        #expect(throws: TreeError.pathTooLong(path: long.wireString, bytes: 769, limit: 768)) {
            try TreeValidation.validateWritePath(long)
        }
        // Bytes are UTF-8 bytes, not characters: 384 two-byte characters = 768 bytes.
        try TreeValidation.validateWritePath(Path(keys: [ChildKey(String(repeating: "é", count: 384))]))
        #expect(throws: TreeError.self) {
            try TreeValidation.validateWritePath(Path(keys: [ChildKey(String(repeating: "é", count: 385))]))
        }
    }

    // MARK: Written values

    @Test func depthCountsDataBelowThePath() throws {
        var value = JSONValue.int(1)
        for i in (0..<30).reversed() { value = .keyed(["d\(i)": value]) }
        // Path /a/b (2) + 30 data keys = 32: allowed.
        _ = try TreeValidation.validatedNode(value, forWriteAt: "/a/b")
        // At /a/b/c the leaf is 33 deep.
        do {
            _ = try TreeValidation.validatedNode(value, forWriteAt: "/a/b/c")
            Issue.record("accepted a 33-deep leaf")
        } catch {
            guard case .pathTooDeep(let path, let depth, 32) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(depth == 33)
            #expect(path.hasPrefix("/a/b/c/d0/d1/"))
            #expect(path.hasSuffix("/d29"))
        }
        // Empty data is never too deep.
        _ = try TreeValidation.validatedNode(.keyed(["x": .keyed(["y": .null])]), forWriteAt: "/a/b/c")
    }

    @Test func keyPathBytesIncludeDataKeys() throws {
        let base = Path(keys: [ChildKey(String(repeating: "p", count: 70))])
        // 70 + 1 + 697 = 768: allowed.
        _ = try TreeValidation.validatedNode(.keyed([String(repeating: "k", count: 697): .int(1)]), forWriteAt: base)
        let key = String(repeating: "k", count: 700)
        #expect(throws: TreeError.pathTooLong(path: base.child(ChildKey(key)).wireString, bytes: 771, limit: 768)) {
            try TreeValidation.validatedNode(.keyed([key: .int(1)]), forWriteAt: base)
        }
    }

    @Test func invalidKeysInData() {
        #expect(throws: TreeError.invalidKey(key: "b.c", character: ".", path: "/root/a")) {
            try TreeValidation.validatedNode(.keyed(["a": .keyed(["b.c": .int(1)])]), forWriteAt: "/root")
        }
        // Dot-keys other than .priority/.value/.sv are refused in writes (Node(json:) ignores them).
        #expect(throws: TreeError.invalidKey(key: ".meta", character: ".", path: "/")) {
            try TreeValidation.validatedNode(.keyed([".meta": .int(1)]), forWriteAt: .root)
        }
        // Keys inside a `.value` belong to the node itself.
        #expect(throws: TreeError.invalidKey(key: ".foo", character: ".", path: "/x/a")) {
            try TreeValidation.validatedNode(
                .keyed(["a": .keyed([".value": .keyed([".foo": .int(1)])])]), forWriteAt: "/x")
        }
        #expect(throws: TreeError.emptyKey(path: "/x")) {
            try TreeValidation.validatedNode(.keyed(["": .int(1)]), forWriteAt: "/x")
        }
        // Array elements are keyed by index and always valid.
        #expect(throws: Never.self) {
            try TreeValidation.validatedNode(
                .array([.int(1), .keyed([".priority": .int(1), "a": .int(2)])]), forWriteAt: "/x")
        }
    }

    @Test func validatedNodeConvertsExportForm() throws {
        let node = try TreeValidation.validatedNode(
            .keyed([
                "a": .keyed([".value": .int(1), ".priority": .int(5)]), "t": .keyed([".sv": .string("timestamp")]),
            ]),
            forWriteAt: "/x")
        #expect(node.child("a") == Node(leaf: .int(1), priority: .int(5)))
        #expect(node.child("t") == Node(leaf: .serverValue(.timestamp)))
    }

    @Test func structuralErrorsNameTheFullPath() {
        #expect(throws: TreeError.valueWithChildren(path: "/w/a")) {
            try TreeValidation.validatedNode(
                .keyed(["a": .keyed([".value": .int(1), "b": .int(2)])]), forWriteAt: "/w")
        }
        #expect(throws: TreeError.invalidServerValue(path: "/w/t", found: "\"now\"")) {
            try TreeValidation.validatedNode(.keyed(["t": .keyed([".sv": .string("now")])]), forWriteAt: "/w")
        }
        #expect(throws: TreeError.invalidPriority(path: "/w/.priority", found: "true")) {
            try TreeValidation.validatedNode(.keyed([".priority": .bool(true), "a": .int(1)]), forWriteAt: "/w")
        }
    }

    @Test func stringSize() throws {
        let limit = TreeValidation.maxStringBytes
        _ = try TreeValidation.validatedNode(.string(String(repeating: "a", count: limit)), forWriteAt: "/s")
        #expect(throws: TreeError.stringTooLong(path: "/s/k", bytes: limit + 1, limit: limit)) {
            try TreeValidation.validatedNode(
                .keyed(["k": .string(String(repeating: "a", count: limit + 1))]),
                forWriteAt: "/s")
        }
        #expect(TreeError.stringTooLong(path: "/s/k", bytes: 1, limit: 0).message.contains("/s/k"))
    }

    @Test func nodeLevelValidation() {
        let badKey = Node(children: ChildMap([(ChildKey("a]"), Node(leaf: .int(1)))]))
        #expect(throws: TreeError.invalidKey(key: "a]", character: "]", path: "/p")) {
            try TreeValidation.validateWrite(badKey, at: "/p")
        }
        #expect(throws: TreeError.nonFiniteNumber(path: "/p")) {
            try TreeValidation.validateWrite(Node(leaf: .double(.nan)), at: "/p")
        }
        #expect(throws: TreeError.invalidPriority(path: "/p/.priority", found: "false")) {
            try TreeValidation.validateWrite(Node(leaf: .int(1), priority: .bool(false)), at: "/p")
        }
        #expect(throws: TreeError.infoNotWritable(path: "/.info/x")) {
            try TreeValidation.validateWrite(Node(leaf: .int(1)), at: "/.info/x")
        }
    }

    @Test func priorityWrites() throws {
        #expect(try TreeValidation.validatedNode(.int(5), forWriteAt: "/a/.priority") == Node(leaf: .int(5)))
        #expect(try TreeValidation.validatedNode(.null, forWriteAt: "/a/.priority") == .empty)
        #expect(
            try TreeValidation.validatedNode(.keyed([".sv": .string("timestamp")]), forWriteAt: "/a/.priority")
                == Node(leaf: .serverValue(.timestamp)))
        #expect(throws: TreeError.invalidPriority(path: "/a/.priority", found: "true")) {
            try TreeValidation.validatedNode(.bool(true), forWriteAt: "/a/.priority")
        }
        #expect(throws: TreeError.invalidPriority(path: "/a/.priority", found: "an object")) {
            try TreeValidation.validatedNode(.keyed(["x": .int(1)]), forWriteAt: "/a/.priority")
        }
        try TreeValidation.validatePriority(.string("p"), at: "/a")
        try TreeValidation.validatePriority(nil, at: "/a")
        #expect(throws: TreeError.nonFiniteNumber(path: "/a/.priority")) {
            try TreeValidation.validatePriority(.double(.infinity), at: "/a")
        }
    }

    // MARK: Multi-path updates

    @Test func updates() throws {
        let result = try TreeValidation.validatedUpdate(
            [
                JSONMember("a/b", .int(1)), JSONMember("c", .keyed(["d": .bool(true)])),
                JSONMember("a/c/.priority", .int(3)),
            ],
            at: "/base")
        #expect(result.map(\.path) == ["a/b", "c", "a/c/.priority"])
        #expect(result[1].node == Node(children: ChildMap([(ChildKey("d"), Node(leaf: .bool(true)))])))
        #expect(try TreeValidation.validatedUpdate([], at: "/x").isEmpty)
    }

    @Test func overlappingUpdatePaths() {
        #expect(throws: TreeError.overlappingPaths(ancestor: "/base/a", descendant: "/base/a/b")) {
            try TreeValidation.validatedUpdate([JSONMember("a/b", .int(1)), JSONMember("a", .int(2))], at: "/base")
        }
        #expect(throws: TreeError.overlappingPaths(ancestor: "/a", descendant: "/a/.priority")) {
            try TreeValidation.validatedUpdate(
                [JSONMember("a", .int(1)), JSONMember("a/.priority", .int(2))], at: .root)
        }
        // The same path spelled twice.
        #expect(throws: TreeError.overlappingPaths(ancestor: "/a/b", descendant: "/a/b")) {
            try TreeValidation.validatedUpdate([JSONMember("a/b", .int(1)), JSONMember("/a/b/", .int(2))], at: .root)
        }
        #expect(
            TreeError.overlappingPaths(ancestor: "/a", descendant: "/a/b").message == "Path /a is an ancestor of /a/b")
        // Siblings with a common prefix do not overlap.
        #expect(throws: Never.self) {
            try TreeValidation.validateDisjoint(["/a/b", "/a/bc", "/ab", "/a/c/d"])
        }
    }

    @Test func updateMemberErrors() {
        #expect(throws: TreeError.invalidKey(key: "b#", character: "#", path: "/x/a")) {
            try TreeValidation.validatedUpdate([JSONMember("a/b#", .int(1))], at: "/x")
        }
        #expect(throws: TreeError.self) {
            try TreeValidation.validatedUpdate([JSONMember("", .int(1))], at: "/x")
        }
        #expect(throws: TreeError.infoNotWritable(path: "/.info/a")) {
            try TreeValidation.validatedUpdate([JSONMember(".info/a", .int(1))], at: .root)
        }
    }

    // MARK: Write size

    @Test func writeSize() throws {
        try TreeValidation.validateWriteSize(byteCount: TreeValidation.maxWriteBytes)
        #expect(
            throws: TreeError.writeTooBig(bytes: TreeValidation.maxWriteBytes + 1, limit: TreeValidation.maxWriteBytes)
        ) {
            try TreeValidation.validateWriteSize(byteCount: TreeValidation.maxWriteBytes + 1)
        }
        #expect(throws: TreeError.writeTooBig(bytes: 11, limit: 10)) {
            try TreeValidation.validateWriteSize(byteCount: 11, limit: 10)
        }
        #expect(TreeError.writeTooBig(bytes: 11, limit: 10).message.contains("11"))
    }
}
