import CanopyStorage
import CanopyTestSupport
import CanopyTree
import Foundation

/// A leaf node.
func leaf(_ value: LeafValue, priority: LeafValue? = nil) -> Node {
    Node(leaf: value, priority: priority)
}

/// A string leaf.
func leaf(_ text: String) -> Node { Node(leaf: .string(text)) }

/// An integer leaf.
func leaf(_ number: Int64) -> Node { Node(leaf: .int(number)) }

/// A children node from (key, node) pairs.
func tree(_ pairs: [(String, Node)], priority: LeafValue? = nil) -> Node {
    Node(children: ChildMap(pairs.map { (ChildKey($0.0), $0.1) }), priority: priority)
}

/// A fresh, empty temporary directory.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("canopy-storage-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The backends every conformance test runs against.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory
    case sqlite
    case sqliteNormal
    case jsonFile
    /// The JSON-file backend compacting after almost every write.
    case jsonFileCompacting

    var description: String { rawValue }

    /// Whether data survives closing and reopening.
    var isPersistent: Bool { self != .memory }

    /// Opens the backend's store in `directory` (a memory store starts empty every time).
    func open(in directory: URL) throws -> any TreeStore {
        switch self {
        case .memory: return MemoryTreeStore()
        case .sqlite: return try SQLiteTreeStore(path: directory.appendingPathComponent("tree.sqlite").path)
        case .sqliteNormal:
            return try SQLiteTreeStore(path: directory.appendingPathComponent("tree.sqlite").path, synchronous: .normal)
        case .jsonFile: return try JSONFileTreeStore(directory: directory.appendingPathComponent("json").path)
        case .jsonFileCompacting:
            return try JSONFileTreeStore(
                directory: directory.appendingPathComponent("json").path, compactionThreshold: 64)
        }
    }
}

/// A store of one backend in its own temporary directory, reopenable.
final class StoreFixture {
    let backend: Backend
    let directory: URL
    private(set) var store: any TreeStore

    init(_ backend: Backend) throws {
        self.backend = backend
        directory = try makeTemporaryDirectory()
        store = try backend.open(in: directory)
    }

    /// Closes and reopens the store (persistent backends keep their data).
    func reopen() throws {
        store.close()
        store = try backend.open(in: directory)
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
