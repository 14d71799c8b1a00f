import CanopyTree
import Synchronization

/// A tree store that keeps the tree in memory only: for tests and for servers that need no
/// persistence. A write is "acknowledged" when it is applied; nothing survives the process.
public final class MemoryTreeStore: TreeStore {
    private struct State {
        var root: Node
        var closed = false
    }

    private let state: Mutex<State>

    /// Creates a store holding `root` (empty by default).
    public init(root: Node = .empty) {
        state = Mutex(State(root: root))
    }

    /// The node at `path`.
    public func read(at path: Path) throws(StorageError) -> Node {
        try state.withLock { state throws(StorageError) -> Node in
            guard !state.closed else { throw StorageError.closed }
            return state.root.child(at: path)
        }
    }

    /// Replaces the node at `path`.
    public func overwrite(at path: Path, with node: Node) throws(StorageError) {
        try apply(.overwrite(path, node))
    }

    /// Replaces the nodes at each relative path below `path`, all at once.
    public func merge(at path: Path, children: [(Path, Node)]) throws(StorageError) {
        try apply(.merge(path, children))
    }

    /// The stats of the tree, computed by walking it.
    public func stats() -> TreeStoreStats {
        TreeStoreStats(tree: state.withLock { $0.root })
    }

    /// Drops the tree.
    public func close() {
        state.withLock {
            $0.closed = true
            $0.root = .empty
        }
    }

    private func apply(_ write: TreeWrite) throws(StorageError) {
        try write.validate()
        try state.withLock { state throws(StorageError) in
            guard !state.closed else { throw StorageError.closed }
            state.root = write.applied(to: state.root)
        }
    }
}
