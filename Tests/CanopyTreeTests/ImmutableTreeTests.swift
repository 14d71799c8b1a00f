import CanopyTree
import Testing

@Suite struct ImmutableTreeTests {
    @Test func setGetAndRemove() {
        let tree = ImmutableTree<Int>.empty.setting(Path("a/b"), 1).setting(Path("a"), 2).setting(.root, 3)
        #expect(tree.value(at: Path("a/b")) == 1)
        #expect(tree.value(at: Path("a")) == 2)
        #expect(tree.value == 3)
        #expect(tree.value(at: Path("a/c")) == nil)
        let removed = tree.removingValue(at: Path("a/b"))
        #expect(removed.value(at: Path("a/b")) == nil)
        #expect(removed.value(at: Path("a")) == 2)
        #expect(ImmutableTree<Int>.empty.setting(Path("x/y"), 1).removingValue(at: Path("x/y")).isEmpty)
    }

    @Test func rootmostValueOnPath() {
        let tree = ImmutableTree<Int>.empty.setting(Path("a"), 1).setting(Path("a/b/c"), 2)
        let found = tree.rootmostValue(on: Path("a/b/c/d"))
        #expect(found?.path == Path("a"))
        #expect(found?.value == 1)
        let filtered = tree.rootmostValue(on: Path("a/b/c")) { $0 > 1 }
        #expect(filtered?.path == Path("a/b/c"))
        #expect(tree.rootmostValue(on: Path("b")) == nil)
    }

    @Test func childrenInKeyOrderAndPostOrderTraversal() {
        let tree = ImmutableTree<String>.empty
            .setting(Path("b"), "b").setting(Path("10"), "10").setting(Path("9"), "9").setting(.root, "root")
        #expect(tree.children.map(\.key) == ["9", "10", "b"])
        var visited: [String] = []
        tree.forEach { _, value in visited.append(value) }
        #expect(visited == ["9", "10", "b", "root"])
        let count = tree.fold { _, value, children in (value == nil ? 0 : 1) + children.reduce(0) { $0 + $1.1 } }
        #expect(count == 4)
    }

    @Test func replacingSubtrees() {
        let tree = ImmutableTree<Int>.empty.setting(Path("a/b"), 1).setting(Path("a/c"), 2)
        let replaced = tree.replacingSubtree(at: Path("a"), with: ImmutableTree(value: 9))
        #expect(replaced.value(at: Path("a")) == 9)
        #expect(replaced.value(at: Path("a/b")) == nil)
        #expect(tree.replacingSubtree(at: Path("a"), with: .empty).isEmpty)
        #expect(tree.subtree(at: Path("a")).children.count == 2)
    }
}
