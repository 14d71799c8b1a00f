/// Where and how a client connects: the pieces of the websocket URL of protocol.md §2.1 and
/// the upgrade request's headers.
public struct ConnectionTarget: Sendable, Equatable {
    /// The host, with a port when not the scheme default (`127.0.0.1:9000`). For the loopback
    /// transport, the listener's name.
    public var host: String
    /// Whether to use TLS (`wss`).
    public var isSecure: Bool
    /// The namespace (`ns`), when one must be sent.
    public var namespace: String?
    /// The session id of the previous connection's hello (`ls`), on reconnects.
    public var lastSessionID: String?
    /// Further query parameters in order (`p` app id, `ac` App Check token, …).
    public var extraParameters: [Parameter]
    /// Headers for the upgrade request (`User-Agent`, `Authorization`, …).
    public var headers: [Parameter]

    /// A name–value pair of a query string or header list.
    public struct Parameter: Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a pair.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a target.
    public init(
        host: String, isSecure: Bool = false, namespace: String? = nil, lastSessionID: String? = nil,
        extraParameters: [Parameter] = [], headers: [Parameter] = []
    ) {
        self.host = host
        self.isSecure = isSecure
        self.namespace = namespace
        self.lastSessionID = lastSessionID
        self.extraParameters = extraParameters
        self.headers = headers
    }

    /// The request path with its query: `/.ws?v=5[&ns=…][&ls=…][&…]`.
    public var pathAndQuery: String {
        var pairs: [(String, String)] = [("v", WireProtocol.version)]
        if let namespace { pairs.append(("ns", namespace)) }
        if let lastSessionID { pairs.append(("ls", lastSessionID)) }
        pairs += extraParameters.map { ($0.name, $0.value) }
        return WireProtocol.webSocketPath + "?" + QueryString.format(pairs)
    }

    /// The full URL, `ws[s]://host/.ws?v=5…`.
    public var url: String {
        (isSecure ? "wss://" : "ws://") + host + pathAndQuery
    }
}
