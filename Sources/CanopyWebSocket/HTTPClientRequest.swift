/// One HTTP/1.1 request made with libwebsockets' client: `http://` or `https://`, verified
/// against the system certificate store plus an optional extra authority.
///
/// It exists for tools that must trust their own certificate authority: Foundation's
/// `URLSession` on Linux always verifies against the system store (swift-corelibs-foundation
/// only reads a CA file from the environment on Android, and has no server-trust delegate
/// callback), while libwebsockets takes the same ``WebSocketTLSOptions`` as ``WebSocketClientTransport``.
///
/// Each request opens its own connection (no keep-alive reuse) and reports what happens as
/// ``HTTPClientEvent``s from ``start()``.
public struct HTTPClientRequest: Sendable {
    /// The method, such as `GET` or `PATCH`.
    public var method: String
    /// The host name or IP address to connect to (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// Whether the connection uses TLS (`https`).
    public var isSecure: Bool
    /// The path and query exactly as sent in the request line (percent-encoded), starting
    /// with `/`.
    public var target: String
    /// Extra request headers (`Accept`, `Content-Type`, ...). `Host` and, with a body,
    /// `Content-Length` are added.
    public var headers: [HTTPHeader]
    /// The request body, sent with a `Content-Length`; nil sends none.
    public var body: [UInt8]?
    /// Certificate verification for `https`.
    public var tls: WebSocketTLSOptions
    /// The longest silence allowed, in seconds: for the connection to open, for the response
    /// to start, and between pieces of the body. The request fails when it passes.
    public var idleTimeoutSeconds: Int
    /// Where library log lines go (the last warnings are also carried by connection errors).
    public var logger: WebSocketLogger

    /// Creates a request for an `http://` or `https://` URL; the query is kept exactly as written.
    ///
    /// - Throws: ``WebSocketError/invalidURL(_:)`` for another scheme, a missing host or a bad port.
    public init(
        method: String,
        url: String,
        headers: [HTTPHeader] = [],
        body: [UInt8]? = nil,
        tls: WebSocketTLSOptions = WebSocketTLSOptions(),
        idleTimeoutSeconds: Int = 60,
        logger: WebSocketLogger = .silent
    ) throws(WebSocketError) {
        let parts = try URLParts(url)
        switch parts.scheme {
        case "http": isSecure = false
        case "https": isSecure = true
        default: throw .invalidURL(url)
        }
        self.method = method
        host = parts.host
        port = parts.port ?? (isSecure ? 443 : 80)
        target = (parts.path.isEmpty ? "/" : parts.path) + (parts.query.isEmpty ? "" : "?" + parts.query)
        self.headers = headers
        self.body = body
        self.tls = tls
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.logger = logger
    }

    /// The value of the `Host` header: the host, with the port unless it is the scheme's default.
    public var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
    }

    /// The address connected to: ``host``, except that a `NAME.localhost` host is reached
    /// at `localhost` (RFC 6761: every such name is the loopback interface, which the system
    /// resolver does not always know); the `Host` header keeps the name.
    var connectAddress: String {
        host.hasSuffix(".localhost") ? "localhost" : host
    }

    /// Sends the request and returns what happens. The sequence ends after the last piece of
    /// the body, and throws a ``WebSocketError`` when the connection cannot be opened (refused,
    /// TLS verification failed — the library's reason is in the error), goes silent for
    /// longer than ``idleTimeoutSeconds``, or closes before the announced body arrived.
    /// Dropping the sequence (or cancelling the task iterating it) abandons the request.
    public func start() -> AsyncThrowingStream<HTTPClientEvent, any Error> {
        let (events, continuation) = AsyncThrowingStream.makeStream(
            of: HTTPClientEvent.self, throwing: (any Error).self)
        let exchange = HTTPClientExchange(request: self, continuation: continuation)
        continuation.onTermination = { _ in exchange.abandon() }
        Task { await exchange.run() }
        return events
    }
}
