import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

@Suite("SyncEngine onDisconnect against a loopback server")
struct SyncEngineOnDisconnectTests {
    @Test("an onDisconnect set runs on the server when the engine's connection closes, and locally at once")
    func setRunsOnDisconnect() async throws {
        let server = try EngineTestServer(seed: #"{"presence":{"a":"online"}}"#)
        let (alice, _) = server.makeEngine()
        let (bob, _) = server.makeEngine()
        let (aliceView, _) = await alice.observe("/presence/a")
        let (bobView, _) = await bob.observe("/presence/a")
        #expect(await bobView.wait(forCount: 1))
        #expect(await aliceView.wait(forCount: 1))
        let done = TestRecorder<DatabaseError?>()
        try await alice.onDisconnectSetValue(try node(#""offline""#), at: "/presence/a") { done.append($0) }
        #expect(await done.wait(forCount: 1))
        #expect(done.items.first! == nil)
        await alice.goOffline()
        // Alice's own view shows the operation as soon as her connection drops…
        #expect(await aliceView.wait { $0.last?.node.text == #""offline""# }, "\(aliceView.items.map(\.node.text))")
        // …and the server runs it for everyone else.
        #expect(await bobView.wait { $0.last?.node.text == #""offline""# }, "\(bobView.items.map(\.node.text))")
        #expect(try await server.value(at: "/presence/a") == #""offline""#)
        await alice.close()
        await bob.close()
    }

    @Test("update, remove and cancel: only what is still registered runs")
    func updateRemoveCancel() async throws {
        let server = try EngineTestServer(seed: #"{"p":{"x":1,"y":2,"z":3}}"#)
        let (engine, transports) = server.makeEngine()
        let done = TestRecorder<DatabaseError?>()
        try await engine.onDisconnectUpdateChildValues(
            [(Path("x"), try node("10")), (Path("y"), try node("20"))], at: "/p"
        ) { done.append($0) }
        try await engine.onDisconnectRemoveValue(at: "/p/z") { done.append($0) }
        try await engine.cancelDisconnectOperations(at: "/p/x") { done.append($0) }
        try await engine.onDisconnectUpdateChildValues([], at: "/p") { done.append($0) }
        #expect(await done.wait(forCount: 4))
        #expect(done.items.allSatisfy { $0 == nil })
        #expect(transports.requests.items.filter { $0.action == "om" }.count == 1)
        await transports.dropConnections()
        let (watcher, _) = server.makeEngine()
        let (view, _) = await watcher.observe("/p")
        #expect(await view.wait { $0.last?.node.text == #"{"x":1,"y":20}"# }, "\(view.items.map(\.node.text))")
        await engine.close()
        await watcher.close()
    }

    @Test("onDisconnect requests made offline are sent after connecting")
    func queuedWhileOffline() async throws {
        let server = try EngineTestServer()
        let (engine, _) = server.makeEngine(startsOnline: false)
        let done = TestRecorder<DatabaseError?>()
        try await engine.onDisconnectSetValue(try node("true"), at: "/gone") { done.append($0) }
        await engine.goOnline()
        #expect(await done.wait(forCount: 1))
        await engine.goOffline()
        let (watcher, _) = server.makeEngine()
        let (view, _) = await watcher.observe("/gone")
        #expect(await view.wait { $0.last?.node.text == "true" })
        await engine.close()
        await watcher.close()
    }
}
