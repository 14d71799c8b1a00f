import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

/// Lets everyone write; refuses reads under `/secret`.
struct SecretReadsPolicy: AccessPolicy {
    func allowsRead(_ read: ReadAccess) -> Bool { read.path.front?.string != "secret" }
    func allowsWrite(_ write: WriteAccess) -> Bool { true }
    func listenWarnings(_ read: ReadAccess) -> [String] { [] }
}

@Suite("SyncEngine transactions against a loopback server")
struct SyncEngineTransactionTests {
    @Test("10 engines × 20 concurrent increments commit exactly 200")
    func contendedIncrements() async throws {
        let server = try EngineTestServer(seed: #"{"counter":0}"#)
        let engines = (0..<10).map { _ in server.makeEngine().0 }
        let done = TestRecorder<TransactionCompletion>()
        for engine in engines {
            for _ in 0..<20 { try await engine.increment(at: "/counter", into: done) }
        }
        #expect(await done.wait(forCount: 200, timeout: .seconds(60)), "completions: \(done.items.count)")
        #expect(done.items.allSatisfy { $0.committed && $0.error == nil })
        #expect(try await server.value(at: "/counter") == "200")
        let committedValues = Set(done.items.compactMap { $0.node?.text })
        #expect(committedValues.count == 200, "each commit saw a distinct value")
        for engine in engines { await engine.close() }
    }

    @Test("N increments made offline commit as N")
    func offlineIncrements() async throws {
        let server = try EngineTestServer(seed: #"{"counter":5}"#)
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/counter")
        #expect(await events.wait(forCount: 1))
        await engine.goOffline()
        let done = TestRecorder<TransactionCompletion>()
        for _ in 0..<7 { try await engine.increment(at: "/counter", into: done) }
        #expect(await events.wait { $0.last?.node.text == "12" }, "local events show every increment")
        await engine.goOnline()
        #expect(await done.wait(forCount: 7), "completions: \(done.items.count)")
        #expect(done.items.allSatisfy { $0.committed })
        #expect(try await server.value(at: "/counter") == "12")
        await engine.close()
    }

    @Test("N increments started before anything is known commit as N")
    func coldOfflineIncrements() async throws {
        let server = try EngineTestServer(seed: #"{"counter":5}"#)
        let (engine, _) = server.makeEngine(startsOnline: false)
        let done = TestRecorder<TransactionCompletion>()
        for _ in 0..<6 { try await engine.increment(at: "/counter", into: done) }
        await engine.goOnline()
        #expect(await done.wait(forCount: 6), "completions: \(done.items.count)")
        #expect(done.items.allSatisfy { $0.committed })
        #expect(try await server.value(at: "/counter") == "11")
        await engine.close()
    }

    @Test("offline increments commit as N when data arriving on reconnect re-runs them mid-flight")
    func incrementsRerunWhileFirstPutIsInFlight() async throws {
        // The root observer completes when the connection returns, raising events that
        // re-run the waiting transactions while the first one's put is with the server.
        let server = try EngineTestServer(seed: #"{"other":1}"#)
        let (engine, _) = server.makeEngine(startsOnline: false)
        let (root, _) = await engine.observe("/")
        let done = TestRecorder<TransactionCompletion>()
        for _ in 0..<5 { try await engine.increment(at: "/counter", into: done) }
        await engine.goOnline()
        #expect(await done.wait(forCount: 5), "completions: \(done.items.count)")
        #expect(done.items.allSatisfy { $0.committed })
        #expect(try await server.value(at: "/counter") == "5")
        #expect(await root.wait { $0.last?.node.text == #"{"counter":5,"other":1}"# }, "\(root.items.map(\.node.text))")
        await engine.close()
    }

    @Test("an update function that aborts ends the transaction without writing")
    func abort() async throws {
        let server = try EngineTestServer(seed: #"{"a":1}"#)
        let (engine, transports) = server.makeEngine()
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait(forCount: 1))
        let done = TestRecorder<TransactionCompletion>()
        try await engine.runTransaction(at: "/a", update: { _ in .abort }, completion: { done.append($0) })
        #expect(await done.wait(forCount: 1))
        let result = try #require(done.items.first)
        #expect(!result.committed)
        #expect(result.error == nil)
        #expect(result.node?.text == "1")
        #expect(!transports.requests.items.contains { $0.action == "p" })
        #expect(await engine.activeTransactionCount == 0)
        await engine.close()
    }

    @Test("a set at the location overrides a transaction not yet sent")
    func overriddenBySet() async throws {
        let server = try EngineTestServer(seed: #"{"a":1}"#)
        let (engine, _) = server.makeEngine(startsOnline: false)
        let done = TestRecorder<TransactionCompletion>()
        try await engine.increment(at: "/a", into: done)
        // A second transaction queues behind the first, which holds the put; both are
        // unsent while offline… the first is with the connection (sent), the second waits.
        try await engine.increment(at: "/a", into: done)
        let setDone = try await engine.set("100", at: "/a")
        #expect(await done.wait(forCount: 1), "the waiting transaction was not aborted")
        #expect(done.items.first?.error?.code == .overriddenBySet)
        #expect(done.items.first?.node == nil)
        await engine.goOnline()
        #expect(await setDone.wait(forCount: 1))
        #expect(await done.wait(forCount: 2))
        // The first put carried the hash of an empty location: the server answers
        // datastale, and the transaction marked by the set fails with `set`.
        #expect(done.items.last?.error?.code == .overriddenBySet)
        #expect(try await server.value(at: "/a") == "100")
        await engine.close()
    }

    @Test("a transaction put on the wire when the connection drops fails with disconnected")
    func disconnectFails() async throws {
        let server = try EngineTestServer(seed: #"{"a":1}"#)
        let (engine, transports) = server.makeEngine()
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait(forCount: 1))
        transports.swallow { request in
            if case .put(_, _, let hash?) = request { return !hash.isEmpty }
            return false
        }
        let done = TestRecorder<TransactionCompletion>()
        try await engine.increment(at: "/a", into: done)
        #expect(await transports.requests.wait { $0.contains { $0.action == "p" } })
        await transports.dropConnections()
        #expect(await done.wait(forCount: 1))
        #expect(done.items.first?.error?.code == .disconnected)
        #expect(done.items.first?.committed == false)
        #expect(events.items.last?.node.text == "1", "the local write was reverted")
        await engine.close()
    }

    @Test("a transaction that never sees the server's data gives up after 25 tries")
    func maxRetries() async throws {
        let server = try EngineTestServer(seed: #"{"secret":1}"#, policy: SecretReadsPolicy())
        let (engine, transports) = server.makeEngine()
        let done = TestRecorder<TransactionCompletion>()
        try await engine.increment(at: "/secret", into: done)
        #expect(await done.wait(forCount: 1))
        #expect(done.items.first?.error?.code == .maxRetries)
        #expect(transports.requests.items.filter { $0.action == "p" }.count == 25)
        #expect(try await server.value(at: "/secret") == "1")
        await engine.close()
    }

    @Test("a transaction without local events raises none until the server confirms")
    func hiddenTransaction() async throws {
        let server = try EngineTestServer(seed: #"{"a":1}"#)
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait(forCount: 1))
        await engine.goOffline()
        let done = TestRecorder<TransactionCompletion>()
        try await engine.runTransaction(
            at: "/a", appliesLocally: false, update: { _ in .commit(Node(leaf: .int(9))) },
            completion: { done.append($0) })
        // A read answered from memory goes through the executor after any event raised
        // before it, and does not see the hidden write either.
        #expect(try await engine.getData(QuerySpec(path: "/a")).text == "1")
        #expect(events.items.map(\.node.text) == ["1"])
        await engine.goOnline()
        #expect(await done.wait(forCount: 1))
        #expect(done.items.first?.committed == true)
        #expect(await events.wait { $0.last?.node.text == "9" })
        await engine.close()
    }

    @Test("transactions at nested paths re-run together travel as one conditional put at their common location")
    func nestedTransactionsShareOnePut() async throws {
        // Started before anything is known: the first put (at /n/a, hash of nothing) is
        // refused as stale, and then both transactions re-run and go out as one put at /n.
        let server = try EngineTestServer(seed: #"{"n":{"a":0}}"#)
        let (engine, transports) = server.makeEngine(startsOnline: false)
        let done = TestRecorder<TransactionCompletion>()
        try await engine.increment(at: "/n/a", into: done)
        try await engine.runTransaction(
            at: "/n",
            update: { current in
                var a: Int64 = 0
                if case .int(let n)? = current.child(ChildKey("a")).leafValue { a = n }
                return .commit(current.updatingChild(ChildKey("b"), Node(leaf: .int(a + 1))))
            },
            completion: { done.append($0) })
        await engine.goOnline()
        #expect(await done.wait(forCount: 2))
        #expect(done.items.allSatisfy { $0.committed })
        #expect(try await server.value(at: "/n") == #"{"a":1,"b":2}"#)
        let puts = transports.requests.items.compactMap { request -> String? in
            if case .put(let path, let data, let hash) = request {
                return "\(path.wireString) \(data.serialized()) \(hash == nil ? "plain" : "conditional")"
            }
            return nil
        }
        #expect(puts == ["/n/a 1 conditional", #"/n {"a":1,"b":2} conditional"#], "puts: \(puts)")
        await engine.close()
    }
}
