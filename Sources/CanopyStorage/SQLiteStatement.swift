import CSQLite

/// A compiled SQL statement of an ``SQLiteDatabase``: bind parameters, step through rows,
/// read columns, reset to run again.
///
/// Parameter and column indexes follow SQLite: parameters count from 1, columns from 0.
/// Each call takes the database's lock; a statement is not `Sendable`, so keep it where it
/// was prepared. The statement is finalized when the value is released.
public final class SQLiteStatement {
    /// The database the statement belongs to.
    public let database: SQLiteDatabase
    private let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit {
        database.lock.lock()
        sqlite3_finalize(handle)
        database.lock.unlock()
    }

    /// Binds `value` to the parameter at `index` (1-based).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(StorageError) {
        database.lock.lock()
        defer { database.lock.unlock() }
        _ = try database.connection()
        let transient = canopy_sqlite_transient()
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .integer(let i):
            rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d):
            rc = sqlite3_bind_double(handle, index, d)
        case .text(let s):
            var text = s
            rc = text.withUTF8 { buffer in
                // A nil base address would bind NULL; bind the empty string explicitly.
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return "".withCString { sqlite3_bind_text(handle, index, $0, 0, transient) }
                }
                return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_bind_text64(
                        handle, index, $0, sqlite3_uint64(buffer.count), transient,
                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(buffer.count), transient)
            }
        }
        guard rc == SQLITE_OK else { throw database.error(rc) }
    }

    /// Binds `values` to parameters 1, 2, … in order.
    public func bind(_ values: [SQLiteValue]) throws(StorageError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Advances to the next row: `true` when a row is available, `false` when the statement
    /// has finished.
    @discardableResult
    public func step() throws(StorageError) -> Bool {
        database.lock.lock()
        defer { database.lock.unlock() }
        _ = try database.connection()
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement to run again and clears its bindings.
    public func reset() {
        database.lock.lock()
        defer { database.lock.unlock() }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets, binds `values`, runs the statement to completion and resets it again.
    public func run(_ values: [SQLiteValue] = []) throws(StorageError) {
        database.lock.lock()
        defer { database.lock.unlock() }
        reset()
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    /// Resets, binds `values` and calls `row` for each result row, then resets.
    public func query(
        _ values: [SQLiteValue] = [],
        row: (SQLiteStatement) throws(StorageError) -> Void
    ) throws(StorageError) {
        database.lock.lock()
        defer { database.lock.unlock() }
        reset()
        defer { reset() }
        try bind(values)
        while try step() { try row(self) }
    }

    /// The number of columns in a result row.
    public var columnCount: Int32 {
        database.lock.lock()
        defer { database.lock.unlock() }
        return sqlite3_column_count(handle)
    }

    /// Whether the column at `index` of the current row is `NULL`.
    public func isNull(at index: Int32) -> Bool {
        database.lock.lock()
        defer { database.lock.unlock() }
        return sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column at `index` of the current row, in its storage class.
    public func value(at index: Int32) -> SQLiteValue {
        database.lock.lock()
        defer { database.lock.unlock() }
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(text(at: index))
        case SQLITE_BLOB: return .blob(blob(at: index))
        default: return .null
        }
    }

    /// The column at `index` as an integer (SQLite converts other storage classes).
    public func int64(at index: Int32) -> Int64 {
        database.lock.lock()
        defer { database.lock.unlock() }
        return sqlite3_column_int64(handle, index)
    }

    /// The column at `index` as a double (SQLite converts other storage classes).
    public func double(at index: Int32) -> Double {
        database.lock.lock()
        defer { database.lock.unlock() }
        return sqlite3_column_double(handle, index)
    }

    /// The column at `index` as text; `NULL` reads as the empty string.
    public func text(at index: Int32) -> String {
        database.lock.lock()
        defer { database.lock.unlock() }
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column at `index` as bytes; `NULL` reads as no bytes.
    public func blob(at index: Int32) -> [UInt8] {
        database.lock.lock()
        defer { database.lock.unlock() }
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
