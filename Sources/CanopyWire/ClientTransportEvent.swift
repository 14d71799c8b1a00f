/// What a ``ClientTransport`` reports, in order.
public enum ClientTransportEvent: Sendable, Equatable {
    /// The connection is open; frames may be sent.
    case opened
    /// A text frame arrived.
    case frame(String)
    /// The connection ended (or could not be established). The last event.
    case closed(TransportCloseReason)
}
