import CanopyServer
import CanopyStorage
import CanopySync
import CanopyTree
import CanopyWebSocket
import CanopyWire
import Testing

/// The whole stack on 127.0.0.1: SyncEngines on libwebsockets client transports against a
/// CanopyServer on a libwebsockets listener.
@Suite("CanopyServer over real websockets")
struct WebSocketEndToEndTests {
    @Test func contendedTransactionsOverWebSocketsCommitExactlyOnce() async throws {
        let listener = try await WebSocketListener.start(configuration: .init(logger: .silent))
        let server = CanopyServer { _ in MemoryTreeStore() }
        let serving = Task { await server.serve(listener) }
        let target = ConnectionTarget(host: "127.0.0.1:\(listener.port)", namespace: "ws")
        let engines = (0..<4).map { _ in
            SyncEngine(configuration: .init(target: target, transportFactory: WebSocketClientTransportFactory()))
        }
        let perEngine = 5
        let results = try await SyncEngineEndToEndTests().incrementCounter(from: engines, perEngine: perEngine)
        #expect(results.allSatisfy { $0.committed && $0.error == nil })
        let total = try await server.namespace(named: "ws").value(at: "/counter")
        #expect(total == Node(leaf: .int(Int64(engines.count * perEngine))))
        for engine in engines { await engine.close() }
        await server.shutdown()
        await listener.stop()
        serving.cancel()
    }
}
