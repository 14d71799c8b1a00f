import CanopyTree

/// The client's mirror of its acknowledged onDisconnect operations: nodes remembered at
/// paths, applied locally when the connection drops (client-design.md §10.1).
struct SparseSnapshotTree {
    private var value: Node?
    private var children: [ChildKey: SparseSnapshotTree] = [:]

    /// An empty tree.
    init() {}

    private init(value: Node?) {
        self.value = value
    }

    /// Whether nothing is remembered.
    var isEmpty: Bool { value == nil && children.isEmpty }

    /// Remembers `node` at `path`, replacing anything remembered at or below it; below a
    /// remembered node the node itself is updated.
    mutating func remember(_ path: Path, _ node: Node) {
        if let value {
            self.value = value.updating(at: path, node)
            return
        }
        guard let key = path.front else {
            value = node
            children = [:]
            return
        }
        children[key, default: SparseSnapshotTree()].remember(path.popFront, node)
    }

    /// Forgets everything at or below `path`; a node remembered above it is split into its
    /// children so that only the part at `path` is dropped. Returns whether the tree is now
    /// empty.
    @discardableResult
    mutating func forget(_ path: Path) -> Bool {
        guard let key = path.front else {
            value = nil
            children = [:]
            return true
        }
        if let value {
            if value.isLeaf { return false }
            self.value = nil
            for (childKey, child) in value.children.entries {
                children[childKey] = SparseSnapshotTree(value: child)
            }
            if let priority = value.priority {
                children[.priority] = SparseSnapshotTree(value: Node(leaf: priority))
            }
        }
        if var child = children[key] {
            if child.forget(path.popFront) {
                children[key] = nil
            } else {
                children[key] = child
            }
        }
        return isEmpty
    }

    /// Every remembered (path, node) pair, under `prefix`.
    func entries(under prefix: Path = .root) -> [(path: Path, node: Node)] {
        if let value { return [(prefix, value)] }
        var result: [(path: Path, node: Node)] = []
        for key in children.keys.sorted(by: { ChildKey.compare($0, $1) < 0 }) {
            if let child = children[key] { result += child.entries(under: prefix.child(key)) }
        }
        return result
    }
}
