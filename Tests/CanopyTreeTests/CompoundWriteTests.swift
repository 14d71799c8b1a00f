import CanopyTree
import Testing

@Suite struct CompoundWriteTests {
    private func node(_ text: String) throws -> Node { try Node(jsonText: text) }

    @Test func emptyWriteLeavesNodesAlone() throws {
        let base = try node(#"{"a": 1}"#)
        #expect(CompoundWrite.empty.isEmpty)
        #expect(CompoundWrite.empty.apply(to: base) == base)
        #expect(CompoundWrite.empty.completeNode(at: Path("a")) == nil)
    }

    @Test func rootWriteReplacesEverything() throws {
        let write = CompoundWrite.empty.adding(try node(#"{"b": 2}"#), at: .root)
        #expect(write.apply(to: try node(#"{"a": 1}"#)) == (try node(#"{"b": 2}"#)))
        #expect(write.completeNode(at: Path("b")) == Node(leaf: .int(2)))
        #expect(write.completeNode(at: Path("c")) == .empty)
    }

    @Test func deeperWriteUpdatesTheCoveringWrite() throws {
        let write = CompoundWrite.empty
            .adding(try node(#"{"x": 1, "y": 2}"#), at: Path("a"))
            .adding(Node(leaf: .int(3)), at: Path("a/x"))
        #expect(write.tree.children.count == 1)
        #expect(write.tree.subtree(at: Path("a/x")).isEmpty)
        #expect(write.completeNode(at: Path("a")) == (try node(#"{"x": 3, "y": 2}"#)))
    }

    @Test func higherWriteReplacesWritesBelow() throws {
        let write = CompoundWrite.empty
            .adding(Node(leaf: .int(1)), at: Path("a/x"))
            .adding(Node(leaf: .int(2)), at: Path("a/y"))
            .adding(Node(leaf: .string("s")), at: Path("a"))
        #expect(write.completeNode(at: Path("a")) == Node(leaf: .string("s")))
        #expect(write.tree.subtree(at: Path("a")).children.isEmpty)
    }

    @Test func removingKeepsHigherWrites() throws {
        let write = CompoundWrite.empty
            .adding(Node(leaf: .int(1)), at: Path("a/x"))
            .adding(Node(leaf: .int(2)), at: Path("b"))
        let removed = write.removing(at: Path("a"))
        #expect(removed.completeNode(at: Path("a/x")) == nil)
        #expect(removed.completeNode(at: Path("b")) == Node(leaf: .int(2)))
        #expect(write.removing(at: .root).isEmpty)
    }

    @Test func applyWritesPriorityLastAndOnlyOnNonEmptyNodes() throws {
        let withPriority = CompoundWrite.empty
            .adding(Node(leaf: .int(5)), at: Path("a/.priority"))
            .adding(Node(leaf: .int(1)), at: Path("a/x"))
        #expect(withPriority.apply(to: .empty) == (try node(#"{"a": {"x": 1, ".priority": 5}}"#)))
        let priorityOnly = CompoundWrite.empty.adding(Node(leaf: .int(5)), at: Path("a/.priority"))
        #expect(priorityOnly.apply(to: .empty) == .empty)
    }

    @Test func priorityBelowAnEmptyWriteIsIgnored() throws {
        let write = CompoundWrite.empty
            .adding(try node(#"{"x": 1}"#), at: Path("a"))
            .adding(Node(leaf: .int(5)), at: Path("a/missing/.priority"))
        #expect(write.completeNode(at: Path("a")) == (try node(#"{"x": 1}"#)))
    }

    @Test func completeChildrenAndChildWrites() throws {
        let write = CompoundWrite.empty
            .adding(Node(leaf: .int(1)), at: Path("a"))
            .adding(Node(leaf: .int(2)), at: Path("b/deep"))
        #expect(write.completeChildren().map(\.key) == ["a"])
        let child = write.childCompoundWrite(at: Path("b"))
        #expect(child.completeNode(at: Path("deep")) == Node(leaf: .int(2)))
        #expect(child.completeNode(at: .root) == nil)
        let covered = write.childCompoundWrite(at: Path("a/z"))
        #expect(covered.completeNode(at: .root) == .empty)
        #expect(!covered.isEmpty)
    }

    @Test func addingACompoundWriteBelowAPath() throws {
        let inner = CompoundWrite(writes: [(Path("x"), Node(leaf: .int(1))), (Path("y/z"), Node(leaf: .int(2)))])
        let write = CompoundWrite.empty.adding(inner, at: Path("a"))
        #expect(write.apply(to: .empty) == (try node(#"{"a": {"x": 1, "y": {"z": 2}}}"#)))
    }
}
