/// What a ``ServerConnection`` reports, in order.
public enum ServerConnectionEvent: Sendable, Equatable {
    /// A text frame arrived from the client.
    case frame(String)
    /// The answer to a ``ServerConnection/sendPing()`` arrived.
    case pong
    /// The connection ended. The last event.
    case closed(TransportCloseReason)
}
