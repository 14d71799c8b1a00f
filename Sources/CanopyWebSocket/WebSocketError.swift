/// Failures of the websocket layer.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL cannot be used for a websocket (scheme, host or port missing or wrong).
    case invalidURL(String)
    /// libwebsockets refused to create its context (bad TLS files, port in use, ...).
    /// `log` holds the library's own explanation, oldest line first.
    case contextCreationFailed(log: [String])
    /// The connection could not be opened: refused, unreachable, TLS or handshake failure,
    /// or no answer before the connect timeout. `reason` is libwebsockets' error text and
    /// `log` the lines it logged meanwhile (the real TLS reason is usually there).
    case connectionFailed(reason: String, log: [String])
    /// The connection is closed (or closing); nothing more can be sent on it.
    case connectionClosed

    /// A one-line explanation for people.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "not a usable websocket URL: \(url)"
        case .contextCreationFailed(let log):
            return "libwebsockets could not create its context"
                + (log.isEmpty ? "" : ": " + log.joined(separator: " | "))
        case .connectionFailed(let reason, let log):
            return "websocket connection failed: \(reason)"
                + (log.isEmpty ? "" : " (" + log.joined(separator: " | ") + ")")
        case .connectionClosed:
            return "the websocket connection is closed"
        }
    }
}
