import CanopySync
import CanopyTree
import CanopyWire
import Foundation
import Testing

@testable import Canopy

/// Instances, URLs and settings.
@Suite struct DatabaseConfigurationTests {
    @Test func sharedInstancesPerURL() {
        let a = Database.database(url: "https://alpha.example.com")
        let b = Database.database(url: "https://alpha.example.com/")
        let c = Database.database(url: "http://127.0.0.1:9000?ns=beta")
        #expect(a === b)
        #expect(a !== c)
        #expect(a.reference(withPath: "users/ann").url == "https://alpha.example.com/users/ann")
        #expect(c.reference(withPath: "users/ann").url == "http://127.0.0.1:9000/users/ann?ns=beta")
        #expect(c.reference().url == "http://127.0.0.1:9000/?ns=beta")
        #expect(a.reference(fromURL: "https://alpha.example.com/a/b").key == "b")
        #expect(a.reference(fromURL: "https://gamma.example.com/a").validationError != nil)
        #expect(Database.database() === Database.database())
    }

    @Test func emulatorKeepsTheNamespaceAndSettingsAreRecorded() {
        let database = Database(url: "https://delta.example.com", transportFactory: LoopbackNetwork())
        database.useEmulator(withHost: "127.0.0.1", port: 9000)
        #expect(database.reference(withPath: "x").url == "http://127.0.0.1:9000/x?ns=delta")
        database.isPersistenceEnabled = true
        database.persistenceCacheSizeBytes = 1
        #expect(database.isPersistenceEnabled)
        #expect(database.persistenceCacheSizeBytes == 1024 * 1024)
        let queue = DispatchQueue(label: "custom")
        database.callbackQueue = queue
        #expect(database.callbackQueue === queue)
        // After first use, settings that need a restart are ignored.
        database.goOnline()
        database.isPersistenceEnabled = false
        database.useEmulator(withHost: "10.0.0.1", port: 1)
        #expect(database.isPersistenceEnabled)
        #expect(database.reference().url == "http://127.0.0.1:9000/?ns=delta")
    }

    @Test func useEmulatorHostSpellingForwards() {
        let database = Database(url: "https://epsilon.example.com", transportFactory: LoopbackNetwork())
        database.useEmulator(host: "localhost", port: 9100)
        #expect(database.reference(withPath: "y").url == "http://localhost:9100/y?ns=epsilon")
        database.goOnline()
        database.useEmulator(host: "10.0.0.2", port: 2)
        #expect(database.reference().url == "http://localhost:9100/?ns=epsilon", "ignored after first use")
    }

    @Test func callbacksRunOnTheCallbackQueue() async throws {
        let database = Database(url: "loopback://nobody?ns=test", transportFactory: LoopbackNetwork())
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "callbacks")
        database.callbackQueue = queue
        let log = EventLog<String>()
        let ref = database.reference(withPath: "q")
        send(1, to: ref)
        ref.observeSingleEvent(of: .value) { _ in log.append(DispatchQueue.getSpecific(key: key) ?? "elsewhere") }
        #expect(try await log.next() == "callbacks")
    }

    @Test func keepSyncedSurvivesRemovingObservers() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let ref = database.reference(withPath: "pinned")
        ref.keepSynced(true)
        ref.keepSynced(true)
        let handle = ref.observe(.value) { _ in }
        ref.removeObserver(withHandle: handle)
        ref.removeAllObservers()
        database.reference(withPath: ".info/connected").keepSynced(true)
        _ = await database.pendingWriteCount
        #expect(await database.engine.pinnedQueries.count == 1)
        #expect(await database.engine.observerCount == 0)
        #expect(await database.engine.pinCount(for: QuerySpec(path: Path("/pinned"))) == 2)
        ref.keepSynced(false)
        _ = await database.pendingWriteCount
        #expect(await database.engine.pinnedQueries.count == 1, "one pin of two removed: still pinned")
        ref.keepSynced(false)
        ref.keepSynced(false)
        _ = await database.pendingWriteCount
        #expect(await database.engine.pinnedQueries.isEmpty)
        #expect(await database.engine.pinCount(for: QuerySpec(path: Path("/pinned"))) == 0)
        ref.keepSynced(true)
        _ = await database.pendingWriteCount
        #expect(
            await database.engine.pinCount(for: QuerySpec(path: Path("/pinned"))) == 1,
            "extra unpins never go below zero")
    }
}
