import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire

/// A ``CanopyServer`` serving a loopback listener named `server`, with namespace `test`
/// seeded from JSON and a fixed clock.
struct LoopbackServerFixture {
    static let now: Int64 = 1_700_000_000_000

    let network: LoopbackNetwork
    let listener: LoopbackListener
    let server: CanopyServer
    let serving: Task<Void, Never>

    init(
        seed: String = "null", maxFrameSize: Int? = nil,
        connection: ServerConnectionStateMachine.Configuration = .init()
    ) throws {
        let root = try Node(json: try JSONParser.parse(seed))
        network = LoopbackNetwork(maxFrameSize: maxFrameSize)
        listener = try network.listen(on: "server")
        let configuration = CanopyServer.Configuration(connection: connection, clock: { LoopbackServerFixture.now })
        server = CanopyServer(configuration: configuration) { name in
            MemoryTreeStore(root: name == "test" ? root : .empty)
        }
        let server = self.server
        let listener = self.listener
        serving = Task { await server.serve(listener) }
    }

    /// A connected client that has already received the hello.
    func client(namespace: String? = "test") async throws -> ScriptedClient {
        let client = await ScriptedClient(network: network, namespace: namespace)
        _ = try await client.receiveHello()
        return client
    }

    /// The data the server holds at `path` in namespace `test`.
    func value(at path: Path) async throws -> String {
        try await server.namespace(named: "test").value(at: path).exportJSON().serialized()
    }

    /// Stops accepting connections; connections still open end with the test process.
    func stop() async {
        await listener.close()
        serving.cancel()
    }
}
