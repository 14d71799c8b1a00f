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
        let (completions, completed) = AsyncStream.makeStream(of: TransactionCompletion.self)
        for engine in engines {
            for _ in 0..<perEngine {
                try await engine.runTransaction(
                    at: "/counter",
                    update: { current in
                        guard case .int(let value)? = current.leafValue else { return .commit(Node(leaf: .int(1))) }
                        return .commit(Node(leaf: .int(value + 1)))
                    },
                    completion: { completed.yield($0) })
            }
        }
        let results = try await SyncEngineEndToEndTests().collect(engines.count * perEngine, from: completions)
        #expect(results.allSatisfy { $0.committed && $0.error == nil })
        let total = try await server.namespace(named: "ws").value(at: "/counter")
        #expect(total == Node(leaf: .int(Int64(engines.count * perEngine))))
        for engine in engines { await engine.close() }
        await server.shutdown()
        await listener.stop()
        serving.cancel()
    }
}
