import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

@Suite("SyncEngine reconnects and offline work")
struct SyncEngineConnectionTests {
    /// The listens, sets and merges the engine sent, in order: `q /path`, `p /path`, `m /path`.
    private func listensAndWrites(_ transports: RecordingTransportFactory) -> [String] {
        transports.requests.items.compactMap { request -> String? in
            switch request {
            case .listen(let listen): return "q \(listen.path.wireString)"
            case .put(let path, _, _): return "p \(path.wireString)"
            case .merge(let path, _): return "m \(path.wireString)"
            default: return nil
            }
        }
    }

    @Test("after a dropped connection the engine reconnects and re-sends its listens")
    func reconnectResendsListens() async throws {
        let server = try EngineTestServer(seed: #"{"r":1}"#)
        let (engine, transports) = server.makeEngine()
        let (connected, _) = await engine.observe(".info/connected")
        let (events, _) = await engine.observe("/r")
        #expect(await events.wait(forCount: 1))
        #expect(await connected.wait { $0.map(\.node.text) == ["false", "true"] })
        await transports.dropConnections()
        #expect(
            await connected.wait { $0.map(\.node.text) == ["false", "true", "false", "true"] },
            "connected: \(connected.items.map(\.node.text))")
        #expect(
            await transports.requests.wait { listenLog($0) == ["q /r", "q /r"] },
            "\(listenLog(transports.requests.items))")
        #expect(transports.attempts >= 2)
        let (other, _) = server.makeEngine()
        _ = try await other.set("2", at: "/r")
        #expect(await events.wait { $0.last?.node.text == "2" })
        await engine.close()
        await other.close()
    }

    @Test("writes made offline are sent once each, in order, after the listens")
    func offlineWritesLandOnceInOrder() async throws {
        let server = try EngineTestServer(seed: #"{"w":{"0":0}}"#)
        let (engine, transports) = server.makeEngine()
        let (events, _) = await engine.observe("/w")
        #expect(await events.wait(forCount: 1))
        await engine.goOffline()
        let done = TestRecorder<DatabaseError?>()
        for index in 1...3 {
            try await engine.setValue(Node(leaf: .int(Int64(index))), at: Path("/w/\(index)")) { done.append($0) }
        }
        try await engine.updateChildValues([(Path("0"), .empty), (Path("4"), Node(leaf: .int(4)))], at: "/w") {
            done.append($0)
        }
        // Local events show the writes at once, while offline.
        #expect(await events.wait { $0.last?.node.exported == #"{"1":1,"2":2,"3":3,"4":4}"# })
        #expect(await engine.pendingWriteCount == 4)
        await engine.goOnline()
        #expect(await done.wait(forCount: 4), "completions: \(done.items.count)")
        #expect(done.items.allSatisfy { $0 == nil })
        #expect(try await server.value(at: "/w") == #"{"1":1,"2":2,"3":3,"4":4}"#)
        let log = listensAndWrites(transports)
        #expect(log == ["q /w", "q /w", "p /w/1", "p /w/2", "p /w/3", "m /w"], "\(log)")
        await engine.close()
    }

    @Test("an engine created offline connects at goOnline and sends what was queued")
    func startsOffline() async throws {
        let server = try EngineTestServer()
        let (engine, transports) = server.makeEngine(startsOnline: false)
        let done = try await engine.set("1", at: "/o")
        #expect(transports.attempts == 0)
        await engine.goOnline()
        #expect(await done.wait(forCount: 1))
        #expect(try await server.value(at: "/o") == "1")
        await engine.close()
    }

    @Test("writes lost on the wire with a dropped connection are re-sent after the listens, in order, once")
    func writesOnTheWireAreResent() async throws {
        let server = try EngineTestServer()
        let (engine, transports) = server.makeEngine()
        let (events, _) = await engine.observe("/lost")
        #expect(await events.wait(forCount: 1))
        transports.swallow { $0.action == "p" || $0.action == "m" }
        let done = TestRecorder<DatabaseError?>()
        for index in 1...3 {
            try await engine.setValue(Node(leaf: .int(Int64(index))), at: Path("/lost/\(index)")) { done.append($0) }
        }
        try await engine.updateChildValues([(Path("4"), Node(leaf: .int(4)))], at: "/lost") { done.append($0) }
        #expect(await transports.requests.wait { $0.filter { ["p", "m"].contains($0.action) }.count == 4 })
        transports.swallow { _ in false }
        await transports.dropConnections()
        #expect(await done.wait(forCount: 4))
        #expect(done.items.allSatisfy { $0 == nil })
        let log = listensAndWrites(transports)
        let once = ["p /lost/1", "p /lost/2", "p /lost/3", "m /lost"]
        #expect(log == ["q /lost"] + once + ["q /lost"] + once, "\(log)")
        #expect(try await server.value(at: "/lost") == #"{"1":1,"2":2,"3":3,"4":4}"#)
        await engine.close()
    }
}
