import CanopyTestSupport
import CanopyTree
import Foundation
import Testing

@testable import CanopyStorage

@Suite struct SQLiteTreeStoreTests {
    /// The property the layout relies on: P contains Q exactly when Q's key is in P's range.
    @Test func pathKeysOfDescendantsFormOneRange() throws {
        var random = SeededGenerator(seed: 42)
        let alphabet: [ChildKey] = ["a", "ab", "a\u{1}", "a\u{2}", "\u{1}", "b", "", "é", "1", "-1"]
        let paths = (0..<300).map { _ in
            Path(keys: (0..<Int.random(in: 0...3, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        for p in paths {
            let key = StoragePathKey.encode(p)
            for q in paths {
                let other = StoragePathKey.encode(q)
                let inRange =
                    p.isRoot
                    || (!other.lexicographicallyPrecedes(key)
                        && other.lexicographicallyPrecedes(StoragePathKey.upperBound(key)))
                #expect(inRange == p.contains(q), "\(p) / \(q)")
            }
            var segments: [ArraySlice<UInt8>] = []
            try StoragePathKey.segments(key[...], into: &segments)
            let decoded = try segments.map { segment throws(StorageError) in
                try StoragePathKey.key(segment)
            }
            #expect(decoded == p.keys)
        }
    }

    @Test func storesShareADatabaseInTheirOwnTables() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        let first = try SQLiteTreeStore(database: database, table: "first")
        let second = try SQLiteTreeStore(database: database, table: "second")
        try first.overwrite(at: "a", with: leaf(1))
        try second.overwrite(at: "a", with: leaf(2))
        #expect(try first.read(at: .root) == tree([("a", leaf(1))]))
        #expect(try second.read(at: .root) == tree([("a", leaf(2))]))
        first.close()
        #expect(!database.isClosed)
        #expect(try second.read(at: "a") == leaf(2))
    }

    @Test func rejectsTableNamesThatAreNotPlainIdentifiers() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        for name in ["", "1tree", "tree; DROP TABLE x", "a\"b", "é"] {
            do {
                _ = try SQLiteTreeStore(database: database, table: name)
                Issue.record("accepted table name \(name.debugDescription)")
            } catch {
                #expect(error.kind == .invalidArgument)
            }
        }
    }

    @Test func anUnknownStoredTypeIsReportedAsCorrupt() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        let store = try SQLiteTreeStore(database: database)
        try store.overwrite(at: "a", with: leaf(1))
        try database.execute("UPDATE tree SET vtype = 99")
        do {
            _ = try store.read(at: .root)
            Issue.record("an unknown value type was read")
        } catch {
            #expect(error.kind == .corrupt)
        }
    }

    @Test func oneRowPerLeafAndPerPriorityOfAChildrenNode() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        let store = try SQLiteTreeStore(database: database)
        try store.overwrite(at: "a", with: tree([("b", leaf(1)), ("c", tree([("d", leaf("x"))], priority: .int(1)))]))
        let count = try database.prepare("SELECT count(*) FROM tree")
        #expect(try count.step())
        #expect(count.int64(at: 0) == 3)
        // Writing below the leaf b turns it into a children node without a row of its own.
        try store.overwrite(at: "a/b/e", with: leaf(2))
        count.reset()
        #expect(try count.step())
        #expect(count.int64(at: 0) == 3)
    }

    /// A failure in the middle of a merge rolls back the children already written.
    @Test func aMergeThatFailsHalfwayLeavesNoTrace() throws {
        let database = try SQLiteDatabase(path: SQLiteDatabase.inMemoryPath)
        let store = try SQLiteTreeStore(database: database)
        try store.overwrite(at: .root, with: tree([("a", leaf(1)), ("c", leaf(3))]))
        let before = store.stats()
        // Refuse any row for the path "b" (key bytes "b", 0x01).
        try database.execute(
            """
            CREATE TRIGGER refuse_b BEFORE INSERT ON tree WHEN NEW.k = x'6201'
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        do {
            try store.merge(at: .root, children: [("a", .empty), ("c", leaf(30)), ("b", leaf(2))])
            Issue.record("the refused merge succeeded")
        } catch {
            #expect(error.kind == .sqlite)
            #expect(error.message.contains("refused"))
        }
        #expect(try store.read(at: .root) == tree([("a", leaf(1)), ("c", leaf(3))]))
        #expect(store.stats() == before)
        try store.merge(at: .root, children: [("a", .empty), ("c", leaf(30))])
        #expect(try store.read(at: .root) == tree([("c", leaf(30))]))
    }
}
