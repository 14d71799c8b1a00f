/// Why a server-side connection ended. Whatever the reason, the server runs the
/// connection's onDisconnect operations (protocol.md §10).
public enum ServerDisconnectReason: Sendable, Equatable {
    /// The server closed the connection.
    case closedByServer
    /// The transport closed or failed.
    case transportClosed(TransportCloseReason)
    /// No frame or pong arrived for the idle timeout (protocol.md §2.7).
    case idleTimeout
}
