import CSQLite
import Foundation

/// A connection to one SQLite database file, safe to share between threads.
///
/// Every call takes the connection's recursive lock, so single calls never interleave;
/// ``transaction(_:)`` and ``serialized(_:)`` hold the lock across a whole block, so a block of
/// statement calls is atomic with respect to other threads. ``SQLiteStatement`` values are
/// not `Sendable`: keep them inside the isolation domain (or the lock-guarded class) that
/// prepared them.
///
/// Durability follows the ``Options`` given at open: in write-ahead-log mode with
/// ``Synchronous/full`` every commit is fsync'd before ``transaction(_:)`` returns, so a
/// committed transaction survives power loss; with ``Synchronous/normal`` a commit survives a
/// crash or kill of the process but the most recent commits can roll back on power loss.
public final class SQLiteDatabase: @unchecked Sendable {
    /// How often SQLite waits for data to reach the disk (`PRAGMA synchronous`).
    public enum Synchronous: String, Sendable {
        /// Never fsync. A commit survives a process crash, but an operating-system crash or
        /// power loss can lose or corrupt recent commits; not for data that matters.
        case off = "OFF"
        /// In WAL mode: fsync at checkpoints only. A commit survives a process crash or kill;
        /// a power loss can roll back the latest commits.
        case normal = "NORMAL"
        /// In WAL mode: fsync the log on every commit. A commit survives power loss.
        case full = "FULL"
    }

    /// Settings applied when the database opens.
    public struct Options: Sendable {
        /// Use the write-ahead log (`PRAGMA journal_mode=WAL`). Ignored for in-memory databases.
        public var writeAheadLog: Bool
        /// The `PRAGMA synchronous` level.
        public var synchronous: Synchronous
        /// How long a statement waits for a lock held by another connection, in milliseconds.
        public var busyTimeoutMilliseconds: Int32

        /// Creates options; the defaults are WAL, `FULL` and a five-second busy timeout.
        public init(
            writeAheadLog: Bool = true, synchronous: Synchronous = .full,
            busyTimeoutMilliseconds: Int32 = 5000
        ) {
            self.writeAheadLog = writeAheadLog
            self.synchronous = synchronous
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        }
    }

    /// The path that opens a private in-memory database.
    public static let inMemoryPath = ":memory:"

    /// The file path the database was opened with.
    public let path: String
    let lock = NSRecursiveLock()
    private var handle: OpaquePointer?
    private var savepointDepth = 0

    /// Opens (creating if needed) the database at `path` and applies `options`.
    public init(path: String, options: Options = Options()) throws(StorageError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            sqlite3_close_v2(db)
            throw StorageError(kind: .sqlite, code: rc, message: "\(message) (\(path))")
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
        do throws(StorageError) {
            sqlite3_busy_timeout(db, options.busyTimeoutMilliseconds)
            if options.writeAheadLog && path != SQLiteDatabase.inMemoryPath {
                let mode = try singleText("PRAGMA journal_mode=WAL")
                guard mode.lowercased() == "wal" else {
                    throw StorageError(
                        kind: .sqlite, code: SQLITE_ERROR,
                        message: "could not enable WAL mode (journal_mode=\(mode))")
                }
            }
            try execute("PRAGMA synchronous=\(options.synchronous.rawValue)")
        } catch {
            close()
            throw error
        }
    }

    deinit {
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return handle == nil
    }

    /// Closes the connection. Statements still alive fail from then on. Calling it twice is
    /// harmless.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    /// Runs `body` holding the connection's lock, for a sequence of calls that must not
    /// interleave with other threads (without opening a transaction).
    public func serialized<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs one or more SQL statements separated by semicolons, discarding any rows.
    public func execute(_ sql: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        let db = try connection()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(errorMessage)
            throw StorageError(kind: .sqlite, code: sqlite3_extended_errcode(db), message: message)
        }
    }

    /// Compiles one SQL statement.
    public func prepare(_ sql: String) throws(StorageError) -> SQLiteStatement {
        lock.lock()
        defer { lock.unlock() }
        let db = try connection()
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(rc)
        }
        return SQLiteStatement(database: self, handle: statement)
    }

    /// Runs `body` in a transaction: committed when `body` returns, rolled back when it throws
    /// (or when the commit fails). Nested calls become savepoints of the outer transaction.
    ///
    /// The outer transaction starts with `BEGIN IMMEDIATE`, so it takes the write lock up
    /// front; the commit is durable as ``Options/synchronous`` promises when this returns.
    public func transaction<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        lock.lock()
        defer { lock.unlock() }
        let db = try connection()
        if sqlite3_get_autocommit(db) == 0 {
            savepointDepth += 1
            defer { savepointDepth -= 1 }
            let name = "canopy_savepoint_\(savepointDepth)"
            try execute("SAVEPOINT \(name)")
            do throws(StorageError) {
                let result = try body()
                try execute("RELEASE \(name)")
                return result
            } catch {
                try? execute("ROLLBACK TO \(name)")
                try? execute("RELEASE \(name)")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do throws(StorageError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(db) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The number of rows the most recent INSERT, UPDATE or DELETE changed.
    public var changes: Int {
        lock.lock()
        defer { lock.unlock() }
        return handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }

    /// The rowid of the most recent successful INSERT into a rowid table.
    public var lastInsertRowID: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    // MARK: - Internal

    /// The open handle; the caller holds the lock.
    func connection() throws(StorageError) -> OpaquePointer {
        guard let handle else { throw StorageError(kind: .closed, message: "the database is closed (\(path))") }
        return handle
    }

    /// The error for result code `rc`, with the connection's current message.
    func error(_ rc: Int32) -> StorageError {
        guard let handle else { return StorageError(kind: .closed, message: "the database is closed (\(path))") }
        let extended = sqlite3_extended_errcode(handle)
        return StorageError(
            kind: .sqlite, code: extended == 0 ? rc : extended,
            message: String(cString: sqlite3_errmsg(handle)))
    }

    /// The first column of the first row of `sql`, as text.
    private func singleText(_ sql: String) throws(StorageError) -> String {
        let statement = try prepare(sql)
        guard try statement.step() else { return "" }
        return statement.text(at: 0)
    }
}
