import CanopyTree
import Testing

@testable import CanopySync

@Suite("SparseSnapshotTree (the onDisconnect mirror)")
struct SparseSnapshotTreeTests {
    func entries(_ tree: SparseSnapshotTree) -> [String] {
        tree.entries().map { "\($0.path.wireString)=\($0.node.exportJSON().serialized())" }
    }

    @Test("remember replaces below, merges into a node remembered above")
    func remember() throws {
        var tree = SparseSnapshotTree()
        tree.remember("/a/b", try Node(jsonText: "1"))
        tree.remember("/a/c", try Node(jsonText: "2"))
        tree.remember("/a", try Node(jsonText: #"{"x":1}"#))
        #expect(entries(tree) == [#"/a={"x":1}"#])
        tree.remember("/a/y", try Node(jsonText: "2"))
        #expect(entries(tree) == [#"/a={"x":1,"y":2}"#])
    }

    @Test("forget drops a subtree and splits a node remembered above it")
    func forget() throws {
        var tree = SparseSnapshotTree()
        tree.remember("/p", try Node(jsonText: #"{"x":1,"y":{"z":2}}"#))
        tree.remember("/q", try Node(jsonText: "3"))
        tree.forget("/p/y/z")
        #expect(entries(tree) == ["/p/x=1", "/q=3"])
        tree.forget("/q")
        tree.forget("/p")
        #expect(tree.isEmpty)
    }
}
