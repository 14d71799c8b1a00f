import CanopyTree

/// A tree store in an SQLite database: one row per leaf, keyed by the leaf's path, so that a
/// subtree read is one range scan and a write touches only the rows of the subtree it
/// replaces.
///
/// ## Layout
/// The table (default name `tree`) has the columns `k BLOB PRIMARY KEY` (the path key, see
/// below), `vtype INTEGER` (0 for the priority row of a children node; 1 bool, 2 integer,
/// 3 double, 4 string, 5 timestamp placeholder, 6 integer increment, 7 double increment),
/// `value`, `ptype INTEGER` (the priority's type, `NULL` for none) and `pvalue`. A path key
/// is each key's UTF-8 bytes (bytes `0x01`/`0x02` escaped) followed by the separator byte
/// `0x01`; since the separator sorts below every other byte, a location and its descendants
/// are exactly the keys `k >= key(P) AND k < key(P)` with its last byte raised to `0x02`.
/// A write at `P` deletes that range, turns a leaf ancestor of `P` into a children node (or
/// deletes it) when the new node is not empty, removes priority rows of ancestors left
/// without children when it is empty, and inserts the new rows — all in one transaction.
///
/// ## Durability: what "acknowledged" means
/// The database runs in WAL mode, one transaction per write method. By default
/// (`synchronous: .full`) SQLite fsyncs the log before each commit returns, so an
/// acknowledged write survives a kill of the process at any moment **and** a power loss or
/// operating-system crash. With `synchronous: .normal` commits skip the fsync: an
/// acknowledged write still survives SIGKILL and any process crash (the log is in the
/// operating system's page cache), but a power loss can roll back the latest writes; choose
/// it only where throughput matters more than that. Either way the database always opens
/// after a crash, never half-written.
public final class SQLiteTreeStore: TreeStore, @unchecked Sendable {
    /// The database holding the table; shared with other tables when the store was created
    /// with ``init(database:table:)``.
    public let database: SQLiteDatabase
    /// The table's name.
    public let table: String

    private let ownsDatabase: Bool
    // Guarded by the database's lock.
    private var statements: Statements?
    private var totals = TreeStoreStats(leafCount: 0, byteSize: 0)

    /// Opens (creating if needed) the database file at `path` in WAL mode with the given
    /// `synchronous` level, and the store's table in it. The store closes the database when
    /// it closes.
    public convenience init(path: String, synchronous: SQLiteDatabase.Synchronous = .full) throws(StorageError) {
        let database = try SQLiteDatabase(path: path, options: .init(writeAheadLog: true, synchronous: synchronous))
        do throws(StorageError) {
            try self.init(database: database, table: "tree", ownsDatabase: true)
        } catch {
            database.close()
            throw error
        }
    }

    /// Uses (creating if needed) the table `table` in an open database, whose durability
    /// options the caller chose. Closing the store leaves the database open.
    public convenience init(database: SQLiteDatabase, table: String = "tree") throws(StorageError) {
        try self.init(database: database, table: table, ownsDatabase: false)
    }

    private init(database: SQLiteDatabase, table: String, ownsDatabase: Bool) throws(StorageError) {
        guard SQLiteTreeStore.isIdentifier(table) else {
            throw StorageError(kind: .invalidArgument, message: "\(table) is not a plain SQL table name")
        }
        self.database = database
        self.table = table
        self.ownsDatabase = ownsDatabase
        try database.serialized { () throws(StorageError) in
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS "\(table)" (
                    k BLOB PRIMARY KEY NOT NULL, vtype INTEGER NOT NULL, value, ptype INTEGER, pvalue
                ) WITHOUT ROWID
                """)
            let statements = try Statements(database: database, table: table)
            try statements.measureAll.query { row throws(StorageError) in
                totals = TreeStoreStats(leafCount: Int(row.int64(at: 0)), byteSize: Int(row.int64(at: 1)))
            }
            self.statements = statements
        }
    }

    // MARK: - TreeStore

    /// The node at `path`, assembled from one range scan.
    public func read(at path: Path) throws(StorageError) -> Node {
        try database.serialized { () throws(StorageError) -> Node in
            let statements = try open()
            if let index = path.keys.firstIndex(where: \.isPriority) {
                guard index == path.count - 1, let target = path.parent else { return .empty }
                return try row(at: StoragePathKey.encode(target), statements)?.priority.map { Node(leaf: $0) } ?? .empty
            }
            let prefix = StoragePathKey.encode(path)
            var builder = StoredNodeBuilder()
            let rows = (path.isRoot ? statements.selectAll : statements.selectRange)
            let bounds: [SQLiteValue] = path.isRoot ? [] : [.blob(prefix), .blob(StoragePathKey.upperBound(prefix))]
            try rows.query(bounds) { row throws(StorageError) in
                let key = row.blob(at: 0)
                guard key.count >= prefix.count else {
                    throw StorageError(kind: .corrupt, message: "a path key outside the range read")
                }
                let stored = try SQLiteTreeStore.storedRow(row, from: 1)
                try builder.add(relativeKey: key[prefix.count...], value: stored.value, priority: stored.priority)
            }
            return builder.finish()
        }
    }

    /// Replaces the node at `path` in one transaction.
    public func overwrite(at path: Path, with node: Node) throws(StorageError) {
        try commit(.overwrite(path, node))
    }

    /// Replaces the nodes at each relative path below `path`, in order, in one transaction.
    public func merge(at path: Path, children: [(Path, Node)]) throws(StorageError) {
        try commit(.merge(path, children))
    }

    /// The leaf count and logical size, maintained on every commit (no scan).
    public func stats() -> TreeStoreStats {
        database.serialized { totals }
    }

    /// Finalizes the statements and, when the store opened the database, closes it.
    public func close() {
        database.serialized {
            statements = nil
            if ownsDatabase { database.close() }
        }
    }

    // MARK: - Writing

    private func commit(_ write: TreeWrite) throws(StorageError) {
        try write.validate()
        try database.serialized { () throws(StorageError) in
            let statements = try open()
            var delta = TreeStoreStats(leafCount: 0, byteSize: 0)
            try database.transaction { () throws(StorageError) in
                for (path, node) in write.changes {
                    try apply(node, at: path, statements, &delta)
                }
            }
            totals.leafCount += delta.leafCount
            totals.byteSize += delta.byteSize
        }
    }

    private func apply(_ node: Node, at path: Path, _ s: Statements, _ delta: inout TreeStoreStats) throws(StorageError)
    {
        if path.back?.isPriority == true, let target = path.parent {
            try setPriority(node.leafValue, of: target, s, &delta)
            return
        }
        let key = StoragePathKey.encode(path)
        let range: [SQLiteValue] = path.isRoot ? [] : [.blob(key), .blob(StoragePathKey.upperBound(key))]
        // Measured before deleting: RETURNING misreports `IS NULL` on WITHOUT ROWID tables
        // in SQLite 3.40.
        var removedAny = false
        try (path.isRoot ? s.measureAll : s.measureRange).query(range) { row throws(StorageError) in
            removedAny = row.int64(at: 2) > 0
            delta.leafCount -= Int(row.int64(at: 0))
            delta.byteSize -= Int(row.int64(at: 1))
        }
        if removedAny { try (path.isRoot ? s.deleteAll : s.deleteRange).run(range) }
        if node.isEmpty {
            if removedAny { try removeEmptiedAncestors(of: path, s, &delta) }
            return
        }
        try replaceLeafAncestor(of: key, s, &delta)
        var buffer = key
        try insert(node, key: &buffer, s, &delta)
    }

    /// A non-empty write below a leaf turns the leaf into a children node keeping its
    /// priority. Below a leaf nothing is stored, so a leaf ancestor is the key just before
    /// `key`.
    private func replaceLeafAncestor(of key: [UInt8], _ s: Statements, _ delta: inout TreeStoreStats)
        throws(StorageError)
    {
        guard !key.isEmpty else { return }
        var found: (key: [UInt8], row: StoredRow)?
        try s.selectBefore.query([.blob(key)]) { row throws(StorageError) in
            found = (row.blob(at: 0), try SQLiteTreeStore.storedRow(row, from: 1))
        }
        guard let (ancestor, row) = found, let value = row.value,
            ancestor.count < key.count, key.starts(with: ancestor)
        else { return }
        delta.leafCount -= 1
        if row.priority != nil {
            try s.clearValue.run([.blob(ancestor)])
            delta.byteSize -= TreeStoreStats.payload(value)
        } else {
            try s.deleteRow.run([.blob(ancestor)])
            delta.byteSize -= ancestor.count + TreeStoreStats.payload(value)
        }
    }

    /// After a delete at `path`, ancestors left without children lose their priority rows.
    private func removeEmptiedAncestors(of path: Path, _ s: Statements, _ delta: inout TreeStoreStats)
        throws(StorageError)
    {
        for ancestor in StoragePathKey.ancestors(of: path).reversed() {
            var occupied = false
            let inside: [SQLiteValue] =
                ancestor.isEmpty ? [] : [.blob(ancestor), .blob(StoragePathKey.upperBound(ancestor))]
            try (ancestor.isEmpty ? s.anyBelowRoot : s.anyInside).query(inside) { _ throws(StorageError) in
                occupied = true
            }
            if occupied { return }
            // Only a children node's priority row can remain at an emptied ancestor.
            guard let row = try row(at: ancestor, s) else { continue }
            try s.deleteRow.run([.blob(ancestor)])
            if row.value != nil { delta.leafCount -= 1 }
            delta.byteSize -= ancestor.count + TreeStoreStats.payload(row.value) + TreeStoreStats.payload(row.priority)
        }
    }

    /// A write to `target/.priority`: sets or clears the priority of an existing node.
    private func setPriority(_ priority: LeafValue?, of target: Path, _ s: Statements, _ delta: inout TreeStoreStats)
        throws(StorageError)
    {
        let key = StoragePathKey.encode(target)
        let newSize = TreeStoreStats.payload(priority)
        let (ptype, pvalue) = priority.map(SQLiteTreeStore.columns) ?? (.null, .null)
        if let row = try row(at: key, s) {
            let oldSize = TreeStoreStats.payload(row.priority)
            if row.value == nil && priority == nil {
                try s.deleteRow.run([.blob(key)])
                delta.byteSize -= key.count + oldSize
            } else {
                try s.updatePriority.run([.blob(key), ptype, pvalue])
                delta.byteSize += newSize - oldSize
            }
            return
        }
        guard priority != nil else { return }
        var occupied = false
        let inside: [SQLiteValue] = key.isEmpty ? [] : [.blob(key), .blob(StoragePathKey.upperBound(key))]
        try (key.isEmpty ? s.anyBelowRoot : s.anyInside).query(inside) { _ throws(StorageError) in occupied = true }
        guard occupied else { return }
        try s.insert.run([.blob(key), .integer(0), .null, ptype, pvalue])
        delta.byteSize += key.count + newSize
    }

    private func insert(_ node: Node, key: inout [UInt8], _ s: Statements, _ delta: inout TreeStoreStats)
        throws(StorageError)
    {
        let (ptype, pvalue) = node.priority.map(SQLiteTreeStore.columns) ?? (.null, .null)
        switch node.content {
        case .leaf(let value):
            let (vtype, stored) = SQLiteTreeStore.columns(value)
            try s.insert.run([.blob(key), vtype, stored, ptype, pvalue])
            delta.leafCount += 1
            delta.byteSize += key.count + TreeStoreStats.payload(value) + TreeStoreStats.payload(node.priority)
        case .children(let children):
            if node.priority != nil {
                try s.insert.run([.blob(key), .integer(0), .null, ptype, pvalue])
                delta.byteSize += key.count + TreeStoreStats.payload(node.priority)
            }
            for (childKey, child) in children.entries {
                let length = key.count
                StoragePathKey.append(childKey, to: &key)
                try insert(child, key: &key, s, &delta)
                key.removeSubrange(length...)
            }
        }
    }

    // MARK: - Rows

    /// A stored row's value (`nil` for a children node's priority row) and priority.
    private struct StoredRow {
        var value: LeafValue?
        var priority: LeafValue?
    }

    private func row(at key: [UInt8], _ s: Statements) throws(StorageError) -> StoredRow? {
        var found: StoredRow?
        try s.selectRow.query([.blob(key)]) { row throws(StorageError) in
            found = try SQLiteTreeStore.storedRow(row, from: 0)
        }
        return found
    }

    private func open() throws(StorageError) -> Statements {
        guard let statements else { throw StorageError.closed }
        return statements
    }

    /// Decodes the four columns `vtype, value, ptype, pvalue` starting at `first`.
    private static func storedRow(_ row: SQLiteStatement, from first: Int32) throws(StorageError) -> StoredRow {
        let value = try leafValue(type: row.int64(at: first), row, column: first + 1)
        let priority =
            row.isNull(at: first + 2) ? nil : try leafValue(type: row.int64(at: first + 2), row, column: first + 3)
        return StoredRow(value: value, priority: priority)
    }

    private static func leafValue(type: Int64, _ row: SQLiteStatement, column: Int32) throws(StorageError) -> LeafValue?
    {
        switch type {
        case 0: return nil
        case 1: return .bool(row.int64(at: column) != 0)
        case 2: return .int(row.int64(at: column))
        case 3: return .double(row.double(at: column))
        case 4: return .string(row.text(at: column))
        case 5: return .serverValue(.timestamp)
        case 6: return .serverValue(.incrementInt(row.int64(at: column)))
        case 7: return .serverValue(.incrementDouble(row.double(at: column)))
        default: throw StorageError(kind: .corrupt, message: "unknown stored value type \(type)")
        }
    }

    /// The type code and stored column value of a leaf value.
    private static func columns(_ value: LeafValue) -> (SQLiteValue, SQLiteValue) {
        switch value {
        case .bool(let b): return (.integer(1), .integer(b ? 1 : 0))
        case .int(let i): return (.integer(2), .integer(i))
        case .double(let d): return (.integer(3), .real(d))
        case .string(let s): return (.integer(4), .text(s))
        case .serverValue(.timestamp): return (.integer(5), .null)
        case .serverValue(.incrementInt(let i)): return (.integer(6), .integer(i))
        case .serverValue(.incrementDouble(let d)): return (.integer(7), .real(d))
        }
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
        }
    }

    /// The store's prepared statements.
    private final class Statements {
        let selectAll, selectRange, selectRow, selectBefore, anyInside, anyBelowRoot: SQLiteStatement
        let measureAll, measureRange, deleteAll, deleteRange, deleteRow: SQLiteStatement
        let insert, clearValue, updatePriority: SQLiteStatement

        init(database: SQLiteDatabase, table: String) throws(StorageError) {
            let t = "\"\(table)\""
            // The row's logical size, as TreeStoreStats defines it.
            let size = """
                length(k) + (CASE vtype WHEN 0 THEN 0 WHEN 4 THEN length(CAST(value AS BLOB)) ELSE 8 END) \
                + (CASE WHEN ptype IS NULL THEN 0 WHEN ptype = 4 THEN length(CAST(pvalue AS BLOB)) ELSE 8 END)
                """
            let columns = "k, vtype, value, ptype, pvalue"
            selectAll = try database.prepare("SELECT \(columns) FROM \(t) ORDER BY k")
            selectRange = try database.prepare("SELECT \(columns) FROM \(t) WHERE k >= ?1 AND k < ?2 ORDER BY k")
            selectRow = try database.prepare("SELECT vtype, value, ptype, pvalue FROM \(t) WHERE k = ?1")
            selectBefore = try database.prepare("SELECT \(columns) FROM \(t) WHERE k < ?1 ORDER BY k DESC LIMIT 1")
            anyInside = try database.prepare("SELECT 1 FROM \(t) WHERE k > ?1 AND k < ?2 LIMIT 1")
            anyBelowRoot = try database.prepare("SELECT 1 FROM \(t) WHERE k > x'' LIMIT 1")
            // Leaf count, logical size and row count.
            let measure = "SELECT count(*) FILTER (WHERE vtype != 0), coalesce(sum(\(size)), 0), count(*) FROM \(t)"
            measureAll = try database.prepare(measure)
            measureRange = try database.prepare("\(measure) WHERE k >= ?1 AND k < ?2")
            deleteAll = try database.prepare("DELETE FROM \(t)")
            deleteRange = try database.prepare("DELETE FROM \(t) WHERE k >= ?1 AND k < ?2")
            deleteRow = try database.prepare("DELETE FROM \(t) WHERE k = ?1")
            insert = try database.prepare("INSERT INTO \(t) (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5)")
            clearValue = try database.prepare("UPDATE \(t) SET vtype = 0, value = NULL WHERE k = ?1")
            updatePriority = try database.prepare("UPDATE \(t) SET ptype = ?2, pvalue = ?3 WHERE k = ?1")
        }
    }
}
