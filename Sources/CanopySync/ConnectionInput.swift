import CanopyWire

/// Something that happened outside the engine actor and must be handled by the
/// ``PersistentConnection`` inside it: a transport event, a timer, a reconnect due.
///
/// Each carries the attempt (connection number) or generation it belongs to, so events from
/// a connection that has already been replaced are ignored.
enum ConnectionInput: Sendable {
    /// Open the first connection (sent once when the engine is created).
    case start
    /// A transport event of connection `attempt`.
    case transport(ClientTransportEvent, attempt: Int)
    /// A state-machine timer of connection `attempt` fired.
    case timer(ClientConnectionTimer, attempt: Int)
    /// The backoff wait scheduled as `generation` is over: connect.
    case reconnect(generation: Int)
    /// The offline wait number `generation` of get request `id` is over.
    case getTimedOut(id: Int, generation: Int)
}
