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
    /// The most bytes one connection may have waiting for a client that does not read them:
    /// websocket frames, or the chunks of a streaming response (Server-Sent Events). A message
    /// (or event) that would take the queue past it closes the connection at once — a websocket
    /// with status 1008 "client too slow" (the server then runs its disconnect handling, such
    /// as onDisconnect operations), a stream by ending the response — and one line is logged;
    /// other connections are unaffected and the client may reconnect and resynchronise.
    ///
    /// Messages are counted whole: one larger than the limit on its own (the initial data of a
    /// big listen) is accepted when nothing else is waiting. Healthy clients also queue while a
    /// burst is written out, so keep the limit above the largest burst a reading client
    /// receives at once. A complete response is as large as its body and is not counted.
    /// Default 32 MiB.
    public var maximumQueuedBytes: Int
    /// How long a connection may have output waiting without a single write going through
    /// (a peer that stopped reading, or a dead network path) before it is dropped. Default 60 s.
    public var stalledWriteTimeout: Duration
    /// How long an HTTP/1.1 connection may stay idle between requests (keep-alive) before the
    /// server closes it. Whole seconds, at least 1; default 5 s.
    public var httpKeepAliveTimeout: Duration
    /// Header names libwebsockets does not know that requests should carry through
    /// (lower-case). Well-known headers are always included.
    public var customHeaders: [String]
    /// Where library log lines go.
    public var logger: WebSocketLogger
    /// Counts the listener's websocket connections and message bytes (for metrics).
    public var trafficMeter: WebSocketTrafficMeter

    /// The non-standard headers official clients send (protocol.md §2.1, §11).
    public static let databaseHeaders = [
        "x-firebase-etag", "x-http-method-override", "x-firebase-appcheck", "x-firebase-gmpid",
        "x-firebase-decoding", "x-firebase-client", "last-event-id", "x-client-version",
    ]

    /// The default of ``maximumQueuedBytes``: 32 MiB.
    public static let defaultMaximumQueuedBytes = 32 << 20

    /// Creates a configuration; by default a plain-text listener on an ephemeral port of
    /// 127.0.0.1.
    public init(
        host: String? = "127.0.0.1",
        port: Int = 0,
        tls: WebSocketServerTLS? = nil,
        maximumMessageBytes: Int = 256 << 20,
        maximumRequestBodyBytes: Int = 256 << 20,
        keepalive: WebSocketKeepalive? = nil,
        maximumQueuedBytes: Int = WebSocketListenerConfiguration.defaultMaximumQueuedBytes,
        stalledWriteTimeout: Duration = .seconds(60),
        httpKeepAliveTimeout: Duration = .seconds(5),
        customHeaders: [String] = WebSocketListenerConfiguration.databaseHeaders,
        logger: WebSocketLogger = .standardError,
        trafficMeter: WebSocketTrafficMeter = WebSocketTrafficMeter()
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumRequestBodyBytes = maximumRequestBodyBytes
        self.keepalive = keepalive
        self.maximumQueuedBytes = maximumQueuedBytes
        self.stalledWriteTimeout = stalledWriteTimeout
        self.httpKeepAliveTimeout = httpKeepAliveTimeout
        self.customHeaders = customHeaders
        self.logger = logger
        self.trafficMeter = trafficMeter
    }
}
