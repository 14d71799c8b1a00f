import CanopyTree

/// One write to a tree store, as a value: what a journal records and what in-memory backends
/// apply to their tree.
enum TreeWrite: Sendable {
    /// Replace the node at a path.
    case overwrite(Path, Node)
    /// Replace the nodes at several paths relative to a base path, in order.
    case merge(Path, [(Path, Node)])

    /// The absolute (path, node) pairs in the order they apply.
    var changes: [(Path, Node)] {
        switch self {
        case .overwrite(let path, let node): return [(path, node)]
        case .merge(let base, let children): return children.map { (base.child($0.0), $0.1) }
        }
    }

    /// Throws when a store cannot perform this write.
    func validate() throws(StorageError) {
        for (path, node) in changes {
            try TreeWrite.validate(path: path)
            try TreeWrite.validate(node: node)
        }
    }

    /// The tree after this write.
    func applied(to root: Node) -> Node {
        changes.reduce(root) { $0.updating(at: $1.0, $1.1) }
    }

    /// Throws unless `.priority` appears at most as the last key of `path`.
    static func validate(path: Path) throws(StorageError) {
        if path.keys.dropLast().contains(where: \.isPriority) {
            throw StorageError(kind: .invalidPath, message: "\(path) has .priority before its last key")
        }
    }

    /// Throws when `node` holds a non-finite number.
    static func validate(node: Node) throws(StorageError) {
        try validate(value: node.priority)
        switch node.content {
        case .leaf(let value): try validate(value: value)
        case .children(let children):
            for (_, child) in children.entries { try validate(node: child) }
        }
    }

    /// Throws when `value` is a non-finite number.
    static func validate(value: LeafValue?) throws(StorageError) {
        switch value {
        case .double(let d)?, .serverValue(.incrementDouble(let d))?:
            if !d.isFinite { throw StorageError(kind: .invalidValue, message: "\(d) is not a finite number") }
        default: break
        }
    }
}
