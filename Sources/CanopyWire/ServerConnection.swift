/// One accepted client connection on the server side of a transport.
///
/// Consume ``events`` (frames and pongs, then exactly one ``ServerConnectionEvent/closed(_:)``
/// after which the stream finishes); ``send(_:)`` text frames; ``sendPing()`` to probe
/// liveness; ``close()`` to end it (the client is notified). Connections are objects, so a
/// server can key per-connection state by identity.
///
/// Sending never suspends: a frame is queued in the connection's own ordered outbound queue
/// and written by the transport when it can, so a server can send from inside an actor
/// without a hop, and frames queued from several places go out in the order queued.
public protocol ServerConnection: AnyObject, Sendable {
    /// The upgrade request the client made.
    var request: ConnectionRequest { get }
    /// The connection's events; single consumer.
    var events: AsyncStream<ServerConnectionEvent> { get }
    /// Queues one text frame for sending; frames arrive in the order queued. Ignored once
    /// closed.
    func send(_ frame: String)
    /// Queues the frames of one message, in order, as one unit: a transport that bounds what
    /// it queues for a slow client accepts or refuses a message whole. Ignored once closed.
    func send(frames: [String])
    /// Sends a transport-level ping; a ``ServerConnectionEvent/pong`` follows while the peer
    /// is alive.
    func sendPing()
    /// Closes the connection after the frames already queued.
    func close()
}

extension ServerConnection {
    /// Sends each frame with ``send(_:)``.
    public func send(frames: [String]) {
        for frame in frames { send(frame) }
    }
}

/// Accepts client connections for a server.
public protocol ServerListener: Sendable {
    /// Connections as clients open them; finishes when the listener closes.
    var connections: AsyncStream<any ServerConnection> { get }
    /// Stops accepting connections. Connections already accepted stay open.
    func close() async
}
