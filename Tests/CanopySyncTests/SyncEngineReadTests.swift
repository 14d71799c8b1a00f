import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

@Suite("SyncEngine one-shot reads and purge against a loopback server")
struct SyncEngineReadTests {
    /// Records an issue unless `answer` is a failure with code `offline`.
    private func expectOfflineFailure(
        _ answer: Result<Node, DatabaseError>?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if case .failure(let error)? = answer {
            #expect(error.code == .offline, sourceLocation: sourceLocation)
        } else {
            Issue.record(
                "expected an offline failure, got \(String(describing: answer))", sourceLocation: sourceLocation)
        }
    }

    @Test("getData asks the server while connected, even when the value is cached")
    func getDataOnline() async throws {
        let server = try EngineTestServer(seed: #"{"a":{"b":1},"s":{"x":{"n":2},"y":{"n":1}}}"#)
        let (engine, transports) = server.makeEngine()
        #expect(try await engine.getData(QuerySpec(path: "/a")).text == #"{"b":1}"#)
        #expect(transports.requests.items.filter { $0.action == "g" }.count == 1)
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait(forCount: 1))
        #expect(await engine.waitUntilConnected())
        #expect(try await engine.getData(QuerySpec(path: "/a/b")).text == "1")
        #expect(transports.requests.items.filter { $0.action == "g" }.count == 2, "server first while connected")
        let params = try QueryParams.default.ordered(byChild: "n").limited(toFirst: 1)
        #expect(try await engine.getData(QuerySpec(path: "/s", params: params)).text == #"{"y":{"n":1}}"#)
        #expect(transports.requests.items.filter { $0.action == "g" }.count == 3)
        await engine.close()
    }

    @Test("getData offline answers from a complete cache at once, or fails within the offline wait")
    func getDataOffline() async throws {
        let server = try EngineTestServer(seed: #"{"a":1,"b":2}"#)
        let (engine, transports) = server.makeEngine(getOfflineTimeout: .seconds(600))
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait(forCount: 1))
        await engine.goOffline()
        // A wait of 600 s would outlast the recorder's wait: the answer comes at once.
        let answers = TestRecorder<Result<Node, DatabaseError>>()
        await engine.getData(QuerySpec(path: "/a")) { answers.append($0) }
        #expect(await answers.wait(forCount: 1), "the cached read waited for a connection")
        #expect((try? answers.items.first?.get())?.text == "1")
        #expect(!transports.requests.items.contains { $0.action == "g" })
        await engine.close()

        let (short, _) = server.makeEngine(startsOnline: false, getOfflineTimeout: .milliseconds(200))
        await #expect {
            _ = try await short.getData(QuerySpec(path: "/b"))
        } throws: { error in
            (error as? DatabaseError)?.code == .offline
        }
        await short.close()
    }

    @Test("a get made offline is answered once the connection returns within the wait")
    func getDataWaitsForConnection() async throws {
        let server = try EngineTestServer(seed: #"{"b":2}"#)
        let (engine, _) = server.makeEngine(startsOnline: false, getOfflineTimeout: .seconds(20))
        let answers = TestRecorder<Result<Node, DatabaseError>>()
        await engine.getData(QuerySpec(path: "/b")) { answers.append($0) }
        await engine.goOnline()
        #expect(await answers.wait(forCount: 1))
        #expect((try? answers.items.first?.get())?.text == "2")
        await engine.close()
    }

    @Test("a get lost with its connection fails within the offline wait while no connection returns")
    func getLostWithConnection() async throws {
        let server = try EngineTestServer(seed: #"{"b":2}"#)
        let (engine, transports) = server.makeEngine(getOfflineTimeout: .milliseconds(200))
        #expect(await engine.waitUntilConnected())
        transports.swallow { $0.action == "g" }
        let answers = TestRecorder<Result<Node, DatabaseError>>()
        await engine.getData(QuerySpec(path: "/b")) { answers.append($0) }
        #expect(await transports.requests.wait { $0.contains { $0.action == "g" } })
        await engine.goOffline()
        #expect(await answers.wait(forCount: 1), "the get hung")
        expectOfflineFailure(answers.items.first)
        await engine.close()
    }

    @Test("a get lost with its connection falls back to the cache when the offline wait expires")
    func getLostFallsBackToCache() async throws {
        let server = try EngineTestServer(seed: #"{"b":2}"#)
        let (engine, transports) = server.makeEngine(getOfflineTimeout: .milliseconds(200))
        let (events, _) = await engine.observe("/b")
        #expect(await events.wait(forCount: 1))
        #expect(await engine.waitUntilConnected())
        transports.swallow { $0.action == "g" }
        let answers = TestRecorder<Result<Node, DatabaseError>>()
        await engine.getData(QuerySpec(path: "/b")) { answers.append($0) }
        #expect(await transports.requests.wait { $0.contains { $0.action == "g" } })
        await engine.goOffline()
        #expect(await answers.wait(forCount: 1), "the get hung")
        #expect((try? answers.items.first?.get())?.text == "2", "\(String(describing: answers.items.first))")
        await engine.close()
    }

    @Test("a get sent and then lost with its connection gets a full offline wait from the drop")
    func getWaitRestartsAtDrop() async throws {
        let server = try EngineTestServer(seed: #"{"b":2}"#)
        let wait = Duration.seconds(2)
        let (engine, transports) = server.makeEngine(startsOnline: false, getOfflineTimeout: wait)
        transports.swallow { $0.action == "g" }
        let answers = TestRecorder<Result<Node, DatabaseError>>()
        // The get starts its wait offline, then is sent when the connection comes.
        await engine.getData(QuerySpec(path: "/b")) { answers.append($0) }
        await engine.goOnline()
        #expect(await transports.requests.wait { $0.contains { $0.action == "g" } })
        // A gap (not a wait for an event): the drop comes well into the first wait, which
        // must no longer be able to fail the get.
        try await Task.sleep(for: .seconds(1))
        // Taken before the drop: the new wait starts inside goOffline(), so this instant is
        // never later than its start, however slowly the call returns under load.
        let dropped = ContinuousClock.now
        await engine.goOffline()
        #expect(await answers.wait(forCount: 1), "the get hung")
        let waited = ContinuousClock.now - dropped
        #expect(waited >= wait - .milliseconds(50), "failed \(waited) after the drop; the wait is \(wait)")
        expectOfflineFailure(answers.items.first)
        await engine.close()
    }

    @Test("purgeOutstandingWrites reverts and fails pending writes, transactions and onDisconnect requests")
    func purge() async throws {
        let server = try EngineTestServer(seed: #"{"x":0}"#)
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/x")
        #expect(await events.wait(forCount: 1))
        await engine.goOffline()
        let writes = TestRecorder<DatabaseError?>()
        try await engine.setValue(try node("1"), at: "/x") { writes.append($0) }
        try await engine.setValue(try node("2"), at: "/y") { writes.append($0) }
        try await engine.onDisconnectSetValue(try node("3"), at: "/z") { writes.append($0) }
        let transactions = TestRecorder<TransactionCompletion>()
        try await engine.increment(at: "/t", into: transactions)
        try await engine.increment(at: "/t", into: transactions)
        #expect(await events.wait { $0.last?.node.text == "1" })
        await engine.purgeOutstandingWrites()
        #expect(await writes.wait(forCount: 3))
        #expect(writes.items.allSatisfy { $0?.code == .writeCanceled })
        #expect(await transactions.wait(forCount: 2))
        #expect(transactions.items.allSatisfy { $0.error?.code == .writeCanceled && !$0.committed })
        #expect(await events.wait { $0.last?.node.text == "0" }, "\(events.items.map(\.node.text))")
        #expect(await engine.pendingWriteCount == 0)
        #expect(await engine.activeTransactionCount == 0)
        await engine.goOnline()
        #expect(await engine.waitUntilConnected())
        let (other, _) = server.makeEngine()
        #expect(try await other.getData(QuerySpec(path: "/")).text == #"{"x":0}"#)
        await engine.close()
        await other.close()
    }
}
