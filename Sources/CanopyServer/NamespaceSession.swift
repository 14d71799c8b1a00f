import CanopyTree
import CanopyWire

/// What a namespace keeps for one open connection: where its pushes go, its listens in the
/// order they were registered, and its pending onDisconnect operations.
struct NamespaceSession: Sendable {
    /// The connection's identity.
    let id: ServerSessionID
    /// Queues a push on the connection's outbound queue, in call order, without waiting.
    let sink: @Sendable (ServerPush) -> Void
    /// The connection's listens, in registration order (the fan-out order).
    var listens: [ServerListen] = []
    /// The connection's pending onDisconnect operations.
    var onDisconnect = OnDisconnectQueue()
}
