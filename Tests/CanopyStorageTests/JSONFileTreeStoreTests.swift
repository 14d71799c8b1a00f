import CanopyStorage
import CanopyTree
import Foundation
import Testing

@Suite struct JSONFileTreeStoreTests {
    /// Opens a store in a fresh directory; the caller removes `directory`.
    private func makeStore(threshold: Int = 1 << 20) throws -> (JSONFileTreeStore, URL) {
        let directory = try makeTemporaryDirectory()
        return (try JSONFileTreeStore(directory: directory.path, compactionThreshold: threshold), directory)
    }

    private func append(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    @Test func theTreeFileIsExportFormAfterClose() throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = tree([
            ("a", leaf(.int(1), priority: .string("p"))), ("b", tree([("c", leaf("x"))], priority: .int(3))),
        ])
        try store.overwrite(at: .root, with: node)
        store.close()
        let text = try String(contentsOf: directory.appendingPathComponent("tree.json"), encoding: .utf8)
        #expect(try Node(jsonText: text) == node)
        #expect(text.contains("\".priority\""))
        let journal = try String(contentsOf: directory.appendingPathComponent("journal.log"), encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 1, "a compacted journal holds only its header")
    }

    // A store released without close() leaves its journal as a crash would (no compaction).

    @Test func aTornLastJournalLineIsIgnoredAndCutOff() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try JSONFileTreeStore(directory: directory.path)
            try store.overwrite(at: "a", with: leaf(1))
            try store.overwrite(at: "b", with: leaf(2))
        }
        try append("{\"p\":[\"c\"],\"o\":", to: directory.appendingPathComponent("journal.log"))
        do {
            let reopened = try JSONFileTreeStore(directory: directory.path)
            #expect(try reopened.read(at: .root) == tree([("a", leaf(1)), ("b", leaf(2))]))
            try reopened.overwrite(at: "d", with: leaf(4))
        }
        let again = try JSONFileTreeStore(directory: directory.path)
        #expect(try again.read(at: .root) == tree([("a", leaf(1)), ("b", leaf(2)), ("d", leaf(4))]))
    }

    @Test func aJournalAlreadyInTheTreeFileIsNotReplayedTwice() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("journal.log")
        let oldJournal: Data
        do {
            let store = try JSONFileTreeStore(directory: directory.path)
            // Replaying these two writes on their own result would add a priority.
            try store.overwrite(at: "a/.priority", with: leaf(5))
            try store.overwrite(at: "a/x", with: leaf(1))
            oldJournal = try Data(contentsOf: journal)
            try store.compact()
        }
        // A crash after tree.json was replaced but before the journal was: the old journal.
        try oldJournal.write(to: journal)
        let reopened = try JSONFileTreeStore(directory: directory.path)
        #expect(try reopened.read(at: .root) == tree([("a", tree([("x", leaf(1))]))]))
    }

    @Test func aMalformedLineBeforeGoodOnesIsCorruption() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try JSONFileTreeStore(directory: directory.path)
            try store.overwrite(at: "a", with: leaf(1))
        }
        try append("not json\n{\"p\":[\"b\"],\"o\":2}\n", to: directory.appendingPathComponent("journal.log"))
        do {
            _ = try JSONFileTreeStore(directory: directory.path)
            Issue.record("a corrupt journal opened")
        } catch {
            #expect(error.kind == .corrupt)
        }
    }

    @Test func oneStoreAtATimeOpensADirectory() throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try JSONFileTreeStore(directory: directory.path)
            Issue.record("a second store opened a directory in use")
        } catch {
            #expect(error.kind == .io)
            #expect(error.code == EWOULDBLOCK)
        }
        try store.overwrite(at: "a", with: leaf(1))
        store.close()
        let reopened = try JSONFileTreeStore(directory: directory.path)
        #expect(try reopened.read(at: "a") == leaf(1))
    }

    @Test func theJournalCompactsPastItsThreshold() throws {
        let (store, directory) = try makeStore(threshold: 512)
        defer { try? FileManager.default.removeItem(at: directory) }
        var expected = Node.empty
        for index in 0..<200 {
            let path = Path(keys: ["items", ChildKey("k\(index % 17)")])
            try store.overwrite(at: path, with: leaf(Int64(index)))
            expected = expected.updating(at: path, leaf(Int64(index)))
        }
        let journalSize =
            try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent("journal.log").path)[.size] as? Int ?? -1
        #expect(journalSize > 0 && journalSize <= 1024)
        let treeText = try String(contentsOf: directory.appendingPathComponent("tree.json"), encoding: .utf8)
        #expect(treeText.contains("\"items\""))
        store.close()
        let reopened = try JSONFileTreeStore(directory: directory.path)
        #expect(try reopened.read(at: .root) == expected)
    }

    @Test func keysThatExportFormCannotCarryAreRejected() throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try store.overwrite(at: "a", with: tree([(".value", leaf(1))]))
            Issue.record("a .value child was accepted")
        } catch {
            #expect(error.kind == .invalidValue)
        }
        do {
            try store.overwrite(at: "a/.sv/b", with: leaf(1))
            Issue.record("a .sv path key was accepted")
        } catch {
            #expect(error.kind == .invalidPath)
        }
        #expect(try store.read(at: .root) == .empty)
    }
}
