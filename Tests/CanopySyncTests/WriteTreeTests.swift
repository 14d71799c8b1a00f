import CanopySync
import CanopyTree
import Testing

@Suite struct WriteTreeTests {
    private func node(_ text: String) throws -> Node { try Node(jsonText: text) }

    @Test func outOfOrderRemovalOfADeeperWriteRestoresTheOuterWrite() throws {
        var writes = WriteTree()
        writes.addOverwrite(path: Path("a"), node: try node(#"{"x": 1, "y": 2}"#), writeId: 0, isVisible: true)
        writes.addOverwrite(path: Path("a/x"), node: Node(leaf: .int(5)), writeId: 1, isVisible: true)
        #expect(writes.shadowingWrite(at: Path("a/x")) == Node(leaf: .int(5)))
        let removed1 = writes.removeWrite(withId: 1)
        #expect(removed1)
        #expect(writes.shadowingWrite(at: Path("a")) == (try node(#"{"x": 1, "y": 2}"#)))
    }

    @Test func removingAWriteCoveredByALaterOneChangesNothingVisible() throws {
        var writes = WriteTree()
        writes.addOverwrite(path: Path("a/x"), node: Node(leaf: .int(1)), writeId: 0, isVisible: true)
        writes.addOverwrite(path: Path("a"), node: Node(leaf: .int(2)), writeId: 1, isVisible: true)
        let removed0 = writes.removeWrite(withId: 0)
        #expect(!removed0)
        #expect(writes.shadowingWrite(at: Path("a")) == Node(leaf: .int(2)))
    }

    @Test func removingAnOuterWriteKeepsALaterDeeperOne() throws {
        var writes = WriteTree()
        writes.addOverwrite(path: Path("a"), node: try node(#"{"x": 1, "y": 2}"#), writeId: 0, isVisible: true)
        writes.addOverwrite(path: Path("a/x"), node: Node(leaf: .int(5)), writeId: 1, isVisible: true)
        let removed0 = writes.removeWrite(withId: 0)
        #expect(removed0)
        #expect(writes.shadowingWrite(at: Path("a")) == nil)
        #expect(writes.shadowingWrite(at: Path("a/x")) == Node(leaf: .int(5)))
    }

    @Test func mergesWithMultiSegmentPaths() throws {
        var writes = WriteTree()
        writes.addMerge(
            path: Path("a"), children: [(Path("b/c"), Node(leaf: .int(1))), (Path("d"), Node(leaf: .int(2)))],
            writeId: 0)
        #expect(writes.write(withId: 0)?.touchedPaths == [Path("a/b/c"), Path("a/d")])
        #expect(writes.shadowingWrite(at: Path("a/b/c")) == Node(leaf: .int(1)))
        #expect(writes.shadowingWrite(at: Path("a/b")) == nil)
        let server = try node(#"{"b": {"c": 0, "e": 3}}"#)
        #expect(
            writes.calcCompleteEventCache(at: Path("a"), serverCache: server)
                == (try node(#"{"b": {"c": 1, "e": 3}, "d": 2}"#)))
        #expect(writes.calcCompleteEventCache(at: Path("a"), serverCache: nil) == nil)
        let removed0 = writes.removeWrite(withId: 0)
        #expect(removed0)
        #expect(writes.visibleWrites.isEmpty)
    }

    @Test func completeChildrenAndIndexedSlices() throws {
        var writes = WriteTree()
        writes.addOverwrite(path: Path("list/c"), node: Node(leaf: .int(3)), writeId: 0, isVisible: true)
        let server = try node(#"{"a": 1, "b": 2}"#)
        #expect(
            writes.calcCompleteEventChildren(at: Path("list"), serverChildren: server)
                == (try node(#"{"a": 1, "b": 2, "c": 3}"#)))
        let after = writes.calcIndexedSlice(
            at: Path("list"), completeServerData: server, after: NamedNode(key: "a", node: Node(leaf: .int(1))),
            count: 5, reverse: false, index: .key)
        #expect(after.map(\.key) == ["b", "c"])
        let before = writes.calcIndexedSlice(
            at: Path("list"), completeServerData: server, after: NamedNode(key: "c", node: Node(leaf: .int(3))),
            count: 1, reverse: true, index: .value)
        #expect(before.map(\.key) == ["b"])
        #expect(
            writes.calcIndexedSlice(
                at: Path("list"), completeServerData: nil, after: .min, count: 1, reverse: false, index: .key
            ).isEmpty)
    }
}
