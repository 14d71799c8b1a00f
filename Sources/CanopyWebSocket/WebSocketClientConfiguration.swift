/// Settings of a ``WebSocketClientTransport``.
public struct WebSocketClientConfiguration: Sendable {
    /// Certificate verification for `wss://`.
    public var tls: WebSocketTLSOptions
    /// Seconds allowed for the TCP connect, TLS and upgrade handshake.
    public var connectTimeoutSeconds: Int
    /// Extra headers on the upgrade request (`User-Agent`, `Authorization`, ...).
    public var headers: [HTTPHeader]
    /// Incoming messages larger than this close the connection with status 1009.
    public var maximumMessageBytes: Int
    /// Optional idle probing with websocket pings; nil leaves liveness to the protocol layer.
    public var keepalive: WebSocketKeepalive?
    /// Where library log lines go.
    public var logger: WebSocketLogger

    /// Creates a configuration; the defaults suit a database client.
    public init(
        tls: WebSocketTLSOptions = WebSocketTLSOptions(),
        connectTimeoutSeconds: Int = 30,
        headers: [HTTPHeader] = [],
        maximumMessageBytes: Int = 256 << 20,
        keepalive: WebSocketKeepalive? = nil,
        logger: WebSocketLogger = .standardError
    ) {
        self.tls = tls
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.headers = headers
        self.maximumMessageBytes = maximumMessageBytes
        self.keepalive = keepalive
        self.logger = logger
    }
}
