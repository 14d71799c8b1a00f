import CanopyStorage
import Foundation
import Testing

@Suite struct SQLiteDatabaseTests {
    @Test func bindsStepsAndReadsEveryStorageClass() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        let insert = try database.prepare("INSERT INTO t (v) VALUES (?1)")
        let values: [SQLiteValue] = [
            .null, .integer(.min), .real(0.1), .text(""), .text("a\u{0}b✓"), .blob([]), .blob([0, 1, 255]),
        ]
        for value in values { try insert.run([value]) }
        #expect(database.lastInsertRowID == Int64(values.count))
        var read: [SQLiteValue] = []
        try database.prepare("SELECT v FROM t ORDER BY id").query { row in read.append(row.value(at: 0)) }
        #expect(read == values)
        let count = try database.prepare("SELECT count(*) FROM t WHERE v IS NULL")
        #expect(try count.step())
        #expect(count.int64(at: 0) == 1)
        #expect(try count.step() == false)
    }

    @Test func reportsSQLiteErrorsWithCodeAndMessage() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        do {
            _ = try database.prepare("SELEC nonsense")
            Issue.record("bad SQL compiled")
        } catch {
            #expect(error.kind == .sqlite)
            #expect(error.code == 1)
            #expect(error.message.contains("syntax error"))
        }
        try database.execute("CREATE TABLE u (k TEXT PRIMARY KEY)")
        let insert = try database.prepare("INSERT INTO u VALUES (?1)")
        try insert.run([.text("x")])
        do {
            try insert.run([.text("x")])
            Issue.record("a duplicate key was inserted")
        } catch {
            #expect(error.code & 0xFF == 19)  // SQLITE_CONSTRAINT (extended: PRIMARYKEY)
            #expect(error.message.contains("UNIQUE"))
        }
        // The statement is usable again after the failure.
        try insert.run([.text("y")])
    }

    @Test func transactionsCommitOrRollBackAndNestAsSavepoints() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        try database.execute("CREATE TABLE t (v INTEGER)")
        let insert = try database.prepare("INSERT INTO t VALUES (?1)")
        try database.transaction { () throws(StorageError) in
            try insert.run([.integer(1)])
            try insert.run([.integer(2)])
        }
        #expect(throws: StorageError.self) {
            try database.transaction { () throws(StorageError) in
                try insert.run([.integer(3)])
                throw StorageError(kind: .invalidArgument, message: "abort")
            }
        }
        try database.transaction { () throws(StorageError) in
            try insert.run([.integer(4)])
            try? database.transaction { () throws(StorageError) in
                try insert.run([.integer(5)])
                throw StorageError(kind: .invalidArgument, message: "inner abort")
            }
            try database.transaction { () throws(StorageError) in try insert.run([.integer(6)]) }
        }
        var values: [Int64] = []
        try database.prepare("SELECT v FROM t ORDER BY v").query { values.append($0.int64(at: 0)) }
        #expect(values == [1, 2, 4, 6])
    }

    @Test func fileDatabasesUseTheWriteAheadLog() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let database = try SQLiteDatabase(path: path)
        let mode = try database.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.text(at: 0) == "wal")
        let synchronous = try database.prepare("PRAGMA synchronous")
        #expect(try synchronous.step())
        #expect(synchronous.int64(at: 0) == 2)  // FULL
    }

    @Test func aClosedDatabaseThrows() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        let statement = try database.prepare("SELECT 1")
        database.close()
        #expect(database.isClosed)
        #expect(throws: StorageError.self) { try statement.step() }
        #expect(throws: StorageError.self) { try database.execute("SELECT 1") }
    }

    @Test func anUnopenablePathThrows() {
        #expect(throws: StorageError.self) {
            try SQLiteDatabase(path: "/nonexistent-directory-\(UUID().uuidString)/db.sqlite")
        }
    }
}
