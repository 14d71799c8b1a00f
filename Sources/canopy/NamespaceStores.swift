import CanopyServer
import CanopyStorage
import Foundation
import Synchronization

/// The stores of `canopy serve`: one per namespace in the data directory, opened on first use
/// — `NAME.sqlite` with the SQLite backend, the directory `NAME.json/` with the JSON-file
/// backend. Any valid namespace name (``CanopyServer/isValidNamespaceName(_:)``) is accepted.
/// One server at a time uses a directory: it holds an exclusive lock on
/// `canopy-serve.lock` in it while it runs.
final class NamespaceStores: Sendable {
    /// The storage backends.
    enum Backend: String, Sendable, CaseIterable {
        /// SQLite (the default): one database file per namespace, fsync'd commits.
        case sqlite
        /// JSON file: a `tree.json` snapshot and an fsync'd journal per namespace.
        case json
    }

    /// Why a store could not be opened.
    struct OpenError: Error, CustomStringConvertible {
        /// What went wrong.
        let description: String
    }

    /// The data directory.
    let directory: URL
    /// The backend of new stores.
    let backend: Backend
    private let metrics: ServerMetrics
    private let opened = Mutex<[(name: String, store: MeteredTreeStore)]>([])

    /// Stores under `directory` (created when missing, with its parents).
    init(directory: URL, backend: Backend, metrics: ServerMetrics) throws(CommandError) {
        self.directory = directory
        self.backend = backend
        self.metrics = metrics
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .failure("cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        // Each server keeps its namespaces' trees in memory: two servers on one directory would
        // each miss the other's writes. The lock is held until the process exits.
        let lockPath = directory.appendingPathComponent("canopy-serve.lock").path
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw .failure("cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw .failure("another canopy serve is using the data directory \(directory.path)")
        }
    }

    /// Opens the store of namespace `name` (the server calls this once per namespace).
    func openStore(_ name: String) throws -> any TreeStore {
        guard CanopyServer.isValidNamespaceName(name) else {
            throw OpenError(description: "invalid namespace name \"\(name)\"")
        }
        let store: any TreeStore
        switch backend {
        case .sqlite:
            store = try SQLiteTreeStore(path: directory.appendingPathComponent("\(name).sqlite").path)
        case .json:
            store = try JSONFileTreeStore(directory: directory.appendingPathComponent("\(name).json").path)
        }
        let metered = MeteredTreeStore(store, metrics: metrics)
        opened.withLock { $0.append((name, metered)) }
        return metered
    }

    /// The names of the namespaces opened so far, in opening order.
    var names: [String] {
        opened.withLock { $0.map(\.name) }
    }

    /// The size of each opened store, by namespace name.
    func stats() -> [(name: String, stats: TreeStoreStats)] {
        opened.withLock { $0 }.map { ($0.name, $0.store.stats()) }
    }
}
