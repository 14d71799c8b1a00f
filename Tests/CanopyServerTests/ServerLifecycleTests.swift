import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire
import Synchronization
import Testing

@Suite("Server lifecycle and refusals")
struct ServerLifecycleTests {
    @Test func connectionsTheServerCanNeverServeGetAShutdownMessage() async throws {
        let fixture = try LoopbackServerFixture()
        let badName = await ScriptedClient(network: fixture.network, namespace: "no.dots")
        let message = try JSONParser.parse(try await badName.receive())
        #expect(message["d"]?["t"] == .string("s"))
        #expect(message["d"]?["d"]?.stringValue?.contains("no.dots") == true)
        _ = try await badName.receiveClose()

        let network = fixture.network
        let transport = LoopbackClientTransport(network: network)
        let events = transport.events
        await transport.connect(
            to: ConnectionTarget(host: "server", namespace: "test", extraParameters: [.init("v", "4")]))
        var frames: [String] = []
        for await event in events {
            if case .frame(let frame) = event { frames.append(frame) }
            if case .closed = event { break }
        }
        #expect(frames.count == 1)
        #expect(frames.first?.contains(#""t":"s""#) == true)
        #expect(frames.first?.contains("version 4") == true)

        #expect(CanopyServer.isValidNamespaceName("my-db_1"))
        #expect(!CanopyServer.isValidNamespaceName(""))
        #expect(!CanopyServer.isValidNamespaceName("../etc"))
        #expect(!CanopyServer.isValidNamespaceName(String(repeating: "a", count: 64)))
        await fixture.stop()
    }

    @Test func shutdownClosesConnectionsRunsTheirOnDisconnectAndRefusesNewOnes() async throws {
        let fixture = try LoopbackServerFixture()
        let client = try await fixture.client()
        await client.request(1, "o", #"{"p":"/status","d":"server stopped"}"#)
        #expect(try await client.receive() == #"{"t":"d","d":{"r":1,"b":{"s":"ok"}}}"#)
        await fixture.server.shutdown()
        _ = try await client.receiveClose()
        #expect(try await fixture.value(at: "/status") == #""server stopped""#)
        let late = await ScriptedClient(network: fixture.network)
        _ = try await late.receiveClose()
        await fixture.stop()
    }

    @Test func theLogHearsAboutConnectionsAndRefusals() async throws {
        let lines = Mutex<[String]>([])
        let network = LoopbackNetwork()
        let listener = try network.listen(on: "server")
        let configuration = CanopyServer.Configuration(log: { line in lines.withLock { $0.append(line) } })
        let server = CanopyServer(configuration: configuration) { _ in MemoryTreeStore() }
        let serving = Task { await server.serve(listener) }
        let refused = await ScriptedClient(network: network, namespace: "a.b")
        _ = try await refused.receiveClose()
        let client = await ScriptedClient(network: network, namespace: "logged")
        _ = try await client.receiveHello()
        await client.send("not json")
        _ = try await client.receiveClose()
        await server.shutdown()
        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.contains("Invalid namespace name \"a.b\"") })
        #expect(logged.contains { $0.contains("connected to namespace logged") })
        #expect(logged.contains { $0.contains("unreadable frame") })
        #expect(logged.contains { $0.contains("ended") })
        await listener.close()
        serving.cancel()
    }
}
