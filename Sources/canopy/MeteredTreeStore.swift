import CanopyStorage
import CanopyTree

/// A tree store that counts the writes committed through it for `/metrics` and otherwise
/// passes every call to the store it wraps.
final class MeteredTreeStore: TreeStore {
    /// The wrapped store.
    let store: any TreeStore
    private let metrics: ServerMetrics

    /// Wraps `store`, counting its writes in `metrics`.
    init(_ store: any TreeStore, metrics: ServerMetrics) {
        self.store = store
        self.metrics = metrics
    }

    func read(at path: Path) throws(StorageError) -> Node {
        try store.read(at: path)
    }

    func overwrite(at path: Path, with node: Node) throws(StorageError) {
        try store.overwrite(at: path, with: node)
        metrics.recordWrite()
    }

    func merge(at path: Path, children: [(Path, Node)]) throws(StorageError) {
        try store.merge(at: path, children: children)
        metrics.recordWrite()
    }

    func stats() -> TreeStoreStats {
        store.stats()
    }

    func close() {
        store.close()
    }
}
