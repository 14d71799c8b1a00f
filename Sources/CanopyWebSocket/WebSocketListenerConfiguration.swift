/// TLS material for a listener: PEM certificate (chain) and private key files.
public struct WebSocketServerTLS: Sendable, Equatable {
    /// Path of the PEM certificate, or certificate chain, file.
    public var certificateFile: String
    /// Path of the PEM private key file.
    public var privateKeyFile: String

    /// Creates TLS settings from file paths.
    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}

/// Settings of a ``WebSocketListener``.
public struct WebSocketListenerConfiguration: Sendable {
    /// The IP address to bind, such as `127.0.0.1` (`localhost` means `127.0.0.1`); nil,
    /// `0.0.0.0` or `::` binds every interface.
    public var host: String?
    /// The TCP port; 0 picks a free port (read it back from ``WebSocketListener/port``).
    public var port: Int
    /// Serve `wss://` and `https://` with these files; nil serves plain text.
    public var tls: WebSocketServerTLS?
    /// Incoming websocket messages larger than this close the connection with status 1009.
    public var maximumMessageBytes: Int
    /// HTTP request bodies larger than this are answered `413`.
    public var maximumRequestBodyBytes: Int
    /// Optional idle probing by libwebsockets itself (pings, then hang-up). The server can
    /// instead probe with ``WebSocketServerConnection/sendPing()`` and close dead connections.
    public var keepalive: WebSocketKeepalive?
    /// Header names libwebsockets does not know that requests should carry through
    /// (lower-case). Well-known headers are always included.
    public var customHeaders: [String]
    /// Where library log lines go.
    public var logger: WebSocketLogger

    /// The non-standard headers official clients send (protocol.md §2.1, §11).
    public static let databaseHeaders = [
        "x-firebase-etag", "x-http-method-override", "x-firebase-appcheck", "x-firebase-gmpid",
        "x-firebase-decoding", "x-firebase-client", "last-event-id", "x-client-version",
    ]

    /// Creates a configuration; by default a plain-text listener on an ephemeral port of
    /// 127.0.0.1.
    public init(
        host: String? = "127.0.0.1",
        port: Int = 0,
        tls: WebSocketServerTLS? = nil,
        maximumMessageBytes: Int = 256 << 20,
        maximumRequestBodyBytes: Int = 256 << 20,
        keepalive: WebSocketKeepalive? = nil,
        customHeaders: [String] = WebSocketListenerConfiguration.databaseHeaders,
        logger: WebSocketLogger = .standardError
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumRequestBodyBytes = maximumRequestBodyBytes
        self.keepalive = keepalive
        self.customHeaders = customHeaders
        self.logger = logger
    }
}
