/// Why a client connection ended, and so what the client engine should do next.
public enum ClientDisconnectReason: Sendable, Equatable {
    /// The engine closed the connection.
    case closedByClient
    /// The transport closed or failed; reconnect with backoff.
    case transportClosed(TransportCloseReason)
    /// No hello arrived within the handshake timeout; reconnect with backoff.
    case handshakeTimedOut
    /// The server sent a reset (`r`): reconnect to `host` (immediately).
    case redirected(host: String)
    /// The server sent a shutdown (`s`): stop reconnecting for the rest of the session.
    case shutdown(reason: String)
    /// The server sent frames that are not valid protocol; reconnect with backoff.
    case protocolError(WireError)
}
