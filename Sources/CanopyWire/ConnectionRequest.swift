/// What a server learns from a websocket upgrade request (protocol.md §2.1): the `Host`
/// header, the `/.ws` query parameters and the other headers.
public struct ConnectionRequest: Sendable, Equatable {
    /// The `Host` header (echoed as the hello's `h`).
    public var host: String
    /// The query parameters, in order, percent-decoded where valid.
    public var parameters: [ConnectionTarget.Parameter]
    /// The request headers, in order.
    public var headers: [ConnectionTarget.Parameter]
    /// The peer's address, when the transport knows it.
    public var remoteAddress: String?

    /// Creates a request from already separated parts.
    public init(
        host: String, parameters: [ConnectionTarget.Parameter] = [], headers: [ConnectionTarget.Parameter] = [],
        remoteAddress: String? = nil
    ) {
        self.host = host
        self.parameters = parameters
        self.headers = headers
        self.remoteAddress = remoteAddress
    }

    /// Creates a request from the `Host` header and the request target (`/.ws?v=5&ns=x`),
    /// parsing the query leniently in any parameter order.
    public init(host: String, target: String, headers: [ConnectionTarget.Parameter] = [], remoteAddress: String? = nil)
    {
        let query = target.firstIndex(of: "?").map { target[target.index(after: $0)...] } ?? ""
        self.init(
            host: host, parameters: QueryString.parse(query).map { ConnectionTarget.Parameter($0.0, $0.1) },
            headers: headers, remoteAddress: remoteAddress)
    }

    /// The request a client makes for `target`, as a server would see it.
    public init(target: ConnectionTarget, remoteAddress: String? = nil) {
        self.init(host: target.host, target: target.pathAndQuery, headers: target.headers, remoteAddress: remoteAddress)
    }

    /// The last value of query parameter `name`.
    public func parameter(_ name: String) -> String? {
        parameters.last { $0.name == name }?.value
    }

    /// The last value of header `name`, compared case-insensitively (ASCII).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }

    /// The protocol version (`v`).
    public var protocolVersion: String? { parameter("v") }
    /// The namespace (`ns`), if sent.
    public var namespace: String? { parameter("ns") }
    /// The previous session id (`ls`), if sent.
    public var lastSessionID: String? { parameter("ls") }
}
