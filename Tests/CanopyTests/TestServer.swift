import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire

@testable import Canopy

/// An in-process ``CanopyServer`` on a loopback listener, and clients connected to it.
struct TestServer: ScenarioServer {
    let network: LoopbackNetwork
    let listener: LoopbackListener
    let server: CanopyServer
    let serving: Task<Void, Never>

    init() throws {
        network = LoopbackNetwork()
        listener = try network.listen(on: "db")
        server = CanopyServer { _ in MemoryTreeStore() }
        let server = self.server
        let listener = self.listener
        serving = Task { await server.serve(listener) }
    }

    /// A new, independent client of namespace `test`. Its reads wait generously for a
    /// connection: the tests expect them to succeed even on a heavily loaded machine.
    func database() -> Database {
        let database = Database(url: "loopback://db?ns=test", transportFactory: network)
        database.getOfflineTimeout = .seconds(30)
        return database
    }

    /// The data the server holds at `path`, as compact JSON in export form.
    func value(at path: String) async throws -> String {
        try await server.namespace(named: "test").value(at: Path(path)).exportJSON().serialized()
    }

    /// Stops accepting connections.
    func stop() async {
        await listener.close()
        serving.cancel()
    }
}
