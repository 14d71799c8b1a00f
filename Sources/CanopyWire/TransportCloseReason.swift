/// Why a transport connection ended.
public enum TransportCloseReason: Sendable, Equatable {
    /// This side asked to close.
    case closedLocally
    /// The other side closed the connection (a websocket close frame, a loopback close).
    case closedByPeer
    /// The connection failed or could not be established (refused, reset, TLS, oversized
    /// frame); the text says what happened.
    case failed(String)
}
