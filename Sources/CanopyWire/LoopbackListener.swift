/// A named listener on a ``LoopbackNetwork``; yields a ``ServerConnection`` for every client
/// that connects to its name.
public final class LoopbackListener: ServerListener, Sendable {
    /// The name clients connect to (their target's host).
    public let name: String
    /// Accepted connections; finishes when the listener closes.
    public let connections: AsyncStream<any ServerConnection>
    private let continuation: AsyncStream<any ServerConnection>.Continuation
    private let network: LoopbackNetwork

    init(name: String, network: LoopbackNetwork) {
        self.name = name
        self.network = network
        (connections, continuation) = AsyncStream.makeStream(of: (any ServerConnection).self)
    }

    func accept(_ connection: LoopbackServerConnection) {
        continuation.yield(connection)
    }

    /// Stops accepting: the name becomes free and ``connections`` finishes. Connections
    /// already accepted stay open.
    public func close() async {
        network.remove(self)
        continuation.finish()
    }
}
