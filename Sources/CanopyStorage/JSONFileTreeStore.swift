import CanopyTree
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tree store kept as plain JSON files in one directory: the whole tree in `tree.json`
/// (export form, readable and importable as is) plus an append-only journal `journal.log`
/// of the writes since, one JSON line each. The tree is held in memory; opening reads
/// `tree.json` and replays the journal.
///
/// ## Durability: what "acknowledged" means
/// A write method returns only after its journal line is written and fsync'd, so an
/// acknowledged write survives a kill of the process at any moment and a power loss. A
/// crash in the middle of an append leaves a torn last line, which the next open ignores
/// (and cuts off). When the journal grows past `max(compactionThreshold, size of tree.json)`,
/// and on ``close()``, the store compacts: it writes the tree to a temporary file, fsyncs
/// it, renames it over `tree.json`, fsyncs the directory and starts a new journal the same
/// way. The journal's first line names the exact `tree.json` it applies to, so a crash
/// between the two renames cannot replay writes twice. A store never fails to open because
/// of a crash.
///
/// If an append, fsync or compaction fails, the store refuses further writes (throwing the
/// original error) until it is reopened: after a failed fsync the file's state is unknown.
/// Reads keep working. One store at a time may have a directory open: the store holds an
/// exclusive `flock` on the file `lock` in it (released when it closes or its process dies),
/// and opening a directory that is in use throws ``StorageError/Kind-swift.enum/io`` with
/// code `EWOULDBLOCK`.
///
/// Keys beginning with `.` cannot be represented in export form, so writes containing them
/// (other than a final `.priority` path key) throw. Integral doubles read back as integers
/// after a reopen (equal values, as `JSONValue` serializes them).
public final class JSONFileTreeStore: TreeStore {
    private struct State {
        var root: Node
        var journal: Int32
        /// The descriptor holding the directory's exclusive lock.
        var lock: Int32
        var journalLength: Int
        var journalWrites: Int
        var treeFileLength: Int
        var failure: StorageError?
        var stats: TreeStoreStats?
    }

    /// The directory holding `tree.json` and `journal.log`.
    public let directory: String
    /// The smallest journal size, in bytes, that triggers a compaction.
    public let compactionThreshold: Int
    private let state: Mutex<State>

    private var treePath: String { directory + "/tree.json" }
    private var journalPath: String { directory + "/journal.log" }

    /// Opens the store in `directory`, creating the directory and an empty store if needed,
    /// and replays the journal.
    ///
    /// - Throws: ``StorageError`` when the files cannot be read or written, or when they hold
    ///   data no crash could have produced.
    public init(directory: String, compactionThreshold: Int = 1 << 20) throws(StorageError) {
        self.directory = directory
        self.compactionThreshold = compactionThreshold
        try DurableFile.createDirectory(directory)
        let lock = try DurableFile.lockExclusively(directory + "/lock")
        let recovered: State
        do throws(StorageError) {
            recovered = try JSONFileTreeStore.recover(directory: directory, lock: lock)
        } catch {
            DurableFile.closeFile(lock)
            throw error
        }
        state = Mutex(recovered)
        if recovered.journalLength > max(compactionThreshold, recovered.treeFileLength) {
            // Optional: the data is readable either way. A failure stops writes (it is
            // rethrown by the next write), not the opening.
            try? compact()
        }
    }

    /// Reads `tree.json`, replays the journal (cutting off a torn last line) and opens the
    /// journal for appending, starting a new one when there is none or it is stale.
    private static func recover(directory: String, lock: Int32) throws(StorageError) -> State {
        let treePath = directory + "/tree.json"
        let journalPath = directory + "/journal.log"
        try DurableFile.remove(treePath + ".tmp")
        try DurableFile.remove(journalPath + ".tmp")

        let treeBytes = try DurableFile.contents(of: treePath)
        var root = Node.empty
        if let treeBytes {
            do {
                root = try Node(json: JSONParser.parse(treeBytes))
            } catch {
                throw StorageError(kind: .corrupt, message: "\(treePath) is not a JSON tree: \(error)")
            }
        }
        let header = TreeJournal.Header(tree: treeBytes)
        var journalLength = 0
        var journalWrites = 0
        if let journalBytes = try DurableFile.contents(of: journalPath) {
            let contents = try TreeJournal.decode(journalBytes)
            if contents.header == header {
                for write in contents.writes { root = write.applied(to: root) }
                journalWrites = contents.writes.count
                journalLength = contents.validLength
                if contents.validLength < journalBytes.count {
                    try truncate(journalPath, to: contents.validLength)
                }
            }
        }
        if journalLength == 0 {
            // No journal, or a stale one whose writes tree.json already holds.
            let line = TreeJournal.line(for: header)
            try DurableFile.replace(journalPath, with: line, directory: directory)
            journalLength = line.count
        }
        let journal = open(journalPath, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard journal >= 0 else { throw DurableFile.failure("cannot open \(journalPath)") }
        return State(
            root: root, journal: journal, lock: lock, journalLength: journalLength,
            journalWrites: journalWrites, treeFileLength: treeBytes?.count ?? 0)
    }

    deinit {
        state.withLock { state in
            if state.journal >= 0 {
                DurableFile.closeFile(state.journal)
                DurableFile.closeFile(state.lock)
            }
        }
    }

    // MARK: - TreeStore

    /// The node at `path`, from memory.
    public func read(at path: Path) throws(StorageError) -> Node {
        try state.withLock { state throws(StorageError) -> Node in
            guard state.journal >= 0 else { throw StorageError.closed }
            return state.root.child(at: path)
        }
    }

    /// Appends the overwrite to the journal, fsyncs it, then applies it.
    public func overwrite(at path: Path, with node: Node) throws(StorageError) {
        try commit(.overwrite(path, node))
    }

    /// Appends the whole merge as one journal line, fsyncs it, then applies it.
    public func merge(at path: Path, children: [(Path, Node)]) throws(StorageError) {
        try commit(.merge(path, children))
    }

    /// The stats of the tree (computed after each write, on first request).
    public func stats() -> TreeStoreStats {
        state.withLock { state in
            if let stats = state.stats { return stats }
            let stats = TreeStoreStats(tree: state.root)
            state.stats = stats
            return stats
        }
    }

    /// Compacts (when the journal holds writes and no write failed) and closes the journal.
    /// The journal is durable already, so a failed compaction loses nothing; the next open
    /// replays it.
    public func close() {
        state.withLock { state in
            guard state.journal >= 0 else { return }
            if state.failure == nil && state.journalWrites > 0 { try? compact(&state) }
            DurableFile.closeFile(state.journal)
            DurableFile.closeFile(state.lock)
            state.journal = -1
            state.root = .empty
            state.stats = nil
        }
    }

    /// Writes the whole tree to `tree.json` and starts an empty journal, atomically.
    public func compact() throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard state.journal >= 0 else { throw StorageError.closed }
            if let failure = state.failure { throw failure }
            try compact(&state)
        }
    }

    // MARK: - Writing

    private func commit(_ write: TreeWrite) throws(StorageError) {
        try write.validate()
        for (path, node) in write.changes {
            try JSONFileTreeStore.validateKeys(path: path, node: node)
        }
        let line = TreeJournal.line(for: write)
        try state.withLock { state throws(StorageError) in
            guard state.journal >= 0 else { throw StorageError.closed }
            if let failure = state.failure { throw failure }
            do throws(StorageError) {
                try DurableFile.writeAll(state.journal, line, path: journalPath)
                try DurableFile.sync(state.journal, path: journalPath)
            } catch {
                // Cut off a partial line so the journal stays readable.
                _ = ftruncate(state.journal, off_t(state.journalLength))
                state.failure = error
                throw error
            }
            state.root = write.applied(to: state.root)
            state.journalLength += line.count
            state.journalWrites += 1
            state.stats = nil
            if state.journalLength > max(compactionThreshold, state.treeFileLength) {
                // The write is durable; a failed compaction only stops later writes.
                try? compact(&state)
            }
        }
    }

    private func compact(_ state: inout State) throws(StorageError) {
        do throws(StorageError) {
            let bytes = state.root.exportJSON().serializedBytes() + [0x0A]
            try DurableFile.replace(treePath, with: bytes, directory: directory)
            try DurableFile.replace(
                journalPath, with: TreeJournal.line(for: TreeJournal.Header(tree: bytes)),
                directory: directory)
            let journal = open(journalPath, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard journal >= 0 else { throw DurableFile.failure("cannot open \(journalPath)") }
            DurableFile.closeFile(state.journal)
            state.journal = journal
            state.journalLength = Int(lseek(journal, 0, SEEK_END))
            state.journalWrites = 0
            state.treeFileLength = bytes.count
        } catch {
            // Once tree.json may have been replaced, the open journal may be stale.
            state.failure = error
            throw error
        }
    }

    private static func truncate(_ path: String, to length: Int) throws(StorageError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DurableFile.failure("cannot open \(path)") }
        defer { DurableFile.closeFile(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else { throw DurableFile.failure("cannot truncate \(path)") }
        try DurableFile.sync(fd, path: path)
    }

    /// Throws for keys that export form cannot carry: any key starting with `.`, except
    /// `.priority` as the last key of the written path.
    private static func validateKeys(path: Path, node: Node) throws(StorageError) {
        for (index, key) in path.keys.enumerated() where key.string.utf8.first == UInt8(ascii: ".") {
            if key.isPriority && index == path.count - 1 { continue }
            throw StorageError(kind: .invalidPath, message: "\(path): a key starting with . cannot be stored as JSON")
        }
        try validateKeys(node)
    }

    private static func validateKeys(_ node: Node) throws(StorageError) {
        for (key, child) in node.children.entries {
            if key.string.utf8.first == UInt8(ascii: ".") {
                throw StorageError(kind: .invalidValue, message: "the key \(key.string) cannot be stored as JSON")
            }
            try validateKeys(child)
        }
    }
}
