import CanopyWire

/// Where a websocket connects: host, port, TLS, and the request path with its query.
///
/// Database connections derive it from a ``CanopyWire/ConnectionTarget`` with
/// ``init(target:)``, which keeps the protocol's `/.ws?v=5&ns=…` form.
public struct WebSocketEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// Whether the connection uses TLS (`wss`).
    public var isSecure: Bool
    /// The request path, starting with `/`.
    public var path: String
    /// The query parameters, in order.
    public var queryItems: [HTTPQueryItem]

    /// Creates an endpoint from its parts.
    public init(host: String, port: Int, isSecure: Bool, path: String = "/", queryItems: [HTTPQueryItem] = []) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.path = path.hasPrefix("/") ? path : "/" + path
        self.queryItems = queryItems
    }

    /// Parses a `ws://` or `wss://` URL (also accepts `http://`/`https://` as their websocket
    /// equivalents). Without a port, 80 or 443 is used.
    public init(url: String) throws(WebSocketError) {
        let parts = try URLParts(url)
        let secure: Bool
        switch parts.scheme {
        case "ws", "http": secure = false
        case "wss", "https": secure = true
        default: throw .invalidURL(url)
        }
        self.init(
            host: parts.host, port: parts.port ?? (secure ? 443 : 80), isSecure: secure,
            path: parts.path.isEmpty ? "/" : parts.path, queryItems: QueryString.decode(parts.query))
    }

    /// The endpoint a database client opens for `target` (protocol.md §2.1): the target's
    /// host and port (80/443 when absent) and its `/.ws?v=5&ns=…` request path.
    public init(target: ConnectionTarget) throws(WebSocketError) {
        let parts = try URLParts((target.isSecure ? "wss://" : "ws://") + target.host)
        self.init(
            host: parts.host, port: parts.port ?? (target.isSecure ? 443 : 80), isSecure: target.isSecure,
            path: WireProtocol.webSocketPath)
        let pathAndQuery = target.pathAndQuery
        if let question = pathAndQuery.firstIndex(of: "?") {
            queryItems = QueryString.decode(String(pathAndQuery[pathAndQuery.index(after: question)...]))
        }
    }

    /// The value of the `Host` header: the host, with the port unless it is the scheme's default.
    public var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let defaultPort = isSecure ? 443 : 80
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// The path and query as sent in the upgrade request, such as `/.ws?v=5&ns=demo`.
    public var requestTarget: String {
        queryItems.isEmpty ? path : path + "?" + QueryString.encode(queryItems)
    }

    /// The full URL, such as `ws://127.0.0.1:9000/.ws?v=5&ns=demo`.
    public var url: String {
        (isSecure ? "wss://" : "ws://") + hostHeader + requestTarget
    }

    /// The full URL.
    public var description: String { url }
}

/// The pieces of a `scheme://host[:port][/path][?query]` URL.
struct URLParts {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: String

    init(_ url: String) throws(WebSocketError) {
        guard let schemeEnd = url.range(of: "://") else { throw .invalidURL(url) }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        var rest = url[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var queryText: Substring = ""
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var authority = rest
        var pathText: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            pathText = rest[slash...]
        }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var hostText: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(url) }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .invalidURL(url) }
        } else if let colon = authority.lastIndex(of: ":") {
            hostText = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            hostText = authority
        }
        guard !hostText.isEmpty else { throw .invalidURL(url) }
        host = hostText.lowercased()
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { throw .invalidURL(url) }
            port = value
        } else {
            port = nil
        }
        path = String(pathText)
        query = String(queryText)
    }
}
