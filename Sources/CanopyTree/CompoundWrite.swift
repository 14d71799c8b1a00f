/// A set of writes layered into one immutable tree, no stored write lying below another
/// (client-design.md §4.2).
///
/// Adding a write below an existing one updates that write's node in place; adding one above
/// replaces everything beneath it. Applying the compound write to a node writes each stored
/// node at its path, `.priority` writes last and only onto non-empty nodes.
public struct CompoundWrite: Sendable {
    /// The stored writes by path.
    public let tree: ImmutableTree<Node>

    /// The compound write with no writes.
    public static let empty = CompoundWrite(tree: .empty)

    /// Wraps a tree of writes (the caller guarantees no write lies below another).
    public init(tree: ImmutableTree<Node>) { self.tree = tree }

    /// Builds a compound write from (relative path, node) pairs, applied in order.
    public init(writes: [(Path, Node)]) {
        var result = CompoundWrite.empty
        for (path, node) in writes { result = result.adding(node, at: path) }
        self = result
    }

    /// Whether there are no writes.
    public var isEmpty: Bool { tree.isEmpty }

    /// A copy with `node` written at `path`.
    public func adding(_ node: Node, at path: Path) -> CompoundWrite {
        if path.isRoot { return CompoundWrite(tree: ImmutableTree(value: node)) }
        if let rootmost = tree.rootmostValue(on: path) {
            let relative = Path(keys: Array(path.keys.dropFirst(rootmost.path.count)))
            if relative.back?.isPriority == true, let parent = relative.parent,
                rootmost.value.child(at: parent).isEmpty
            {
                // A priority on a node that does not exist: ignore it.
                return self
            }
            return CompoundWrite(tree: tree.setting(rootmost.path, rootmost.value.updating(at: relative, node)))
        }
        return CompoundWrite(tree: tree.replacingSubtree(at: path, with: ImmutableTree(value: node)))
    }

    /// A copy with every write of `writes` added below `path`.
    public func adding(_ writes: CompoundWrite, at path: Path) -> CompoundWrite {
        var result = self
        writes.tree.forEach { relative, node in result = result.adding(node, at: path.child(relative)) }
        return result
    }

    /// A copy without the write at `path` and every write below it (a write above `path`
    /// is kept).
    public func removing(at path: Path) -> CompoundWrite {
        if path.isRoot { return .empty }
        return CompoundWrite(tree: tree.replacingSubtree(at: path, with: .empty))
    }

    /// Whether a write fully defines the data at `path`.
    public func hasCompleteWrite(at path: Path) -> Bool { completeNode(at: path) != nil }

    /// The node a write fully defines at `path` (the rootmost write on the path, projected),
    /// or `nil`.
    public func completeNode(at path: Path) -> Node? {
        guard let rootmost = tree.rootmostValue(on: path) else { return nil }
        return rootmost.value.child(at: Path(keys: Array(path.keys.dropFirst(rootmost.path.count))))
    }

    /// The children fully defined by writes, in key order.
    public func completeChildren() -> [NamedNode] {
        if let node = tree.value {
            return node.children.entries.map { NamedNode(key: $0.0, node: $0.1) }
        }
        return tree.children.compactMap { entry in entry.tree.value.map { NamedNode(key: entry.key, node: $0) } }
    }

    /// The writes at and below `path`, re-rooted there: a single write when a write covers
    /// `path`, else the subtree.
    public func childCompoundWrite(at path: Path) -> CompoundWrite {
        if path.isRoot { return self }
        if let node = completeNode(at: path) { return CompoundWrite(tree: ImmutableTree(value: node)) }
        return CompoundWrite(tree: tree.subtree(at: path))
    }

    /// `node` with every write applied.
    public func apply(to node: Node) -> Node {
        CompoundWrite.apply(tree, at: .root, to: node)
    }

    private static func apply(_ tree: ImmutableTree<Node>, at path: Path, to node: Node) -> Node {
        if let value = tree.value { return node.updating(at: path, value) }
        var result = node
        var priority: Node?
        for (key, child) in tree.children {
            if key.isPriority {
                priority = child.value
            } else {
                result = apply(child, at: path.child(key), to: result)
            }
        }
        if let priority, !result.child(at: path).isEmpty {
            result = result.updating(at: path.child(.priority), priority)
        }
        return result
    }
}
