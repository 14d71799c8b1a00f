/// One HTTP header line. Names are stored lower-cased.
public struct HTTPHeader: Sendable, Equatable, CustomStringConvertible {
    /// The lower-cased header name, such as `content-type`.
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header; the name is lower-cased.
    public init(_ name: String, _ value: String) {
        self.name = name.lowercased()
        self.value = value
    }

    /// `name: value`.
    public var description: String { "\(name): \(value)" }
}

/// One decoded `name=value` pair of a query string.
public struct HTTPQueryItem: Sendable, Equatable {
    /// The decoded parameter name.
    public var name: String
    /// The decoded value (empty when the parameter had no `=`).
    public var value: String

    /// Creates a query item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A plain HTTP request received by a listener (REST or Server-Sent Events), independent of
/// the transport that carried it.
public struct HTTPRequest: Sendable {
    /// The method in upper case: `GET`, `PUT`, `POST`, `PATCH`, `DELETE`, `OPTIONS`, `HEAD`.
    public var method: String
    /// The percent-decoded path, such as `/users/ada.json`.
    public var path: String
    /// The query parameters in request order, percent-decoded.
    public var queryItems: [HTTPQueryItem]
    /// The request headers (names lower-cased).
    public var headers: [HTTPHeader]
    /// The request body (empty when there is none).
    public var body: [UInt8]
    /// The peer's address, when known.
    public var remoteAddress: String

    /// Creates a request.
    public init(
        method: String,
        path: String,
        queryItems: [HTTPQueryItem] = [],
        headers: [HTTPHeader] = [],
        body: [UInt8] = [],
        remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The query string re-encoded from ``queryItems`` (`a=1&b=%22x%22`), without the `?`.
    public var query: String { QueryString.encode(queryItems) }

    /// The first value of the header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// The first value of the query parameter `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

/// The answer to an ``HTTPRequest``: a complete body, or a stream of chunks (Server-Sent
/// Events) written as they arrive until the sequence ends or the client goes away.
public enum HTTPResponse: Sendable {
    /// A response whose body is known in full (sent with `Content-Length`).
    case complete(status: Int, headers: [HTTPHeader], body: [UInt8])
    /// A streaming response: the headers, then each chunk flushed as soon as it is yielded.
    /// The connection closes when the stream finishes. When the client disconnects, the
    /// listener stops iterating, which terminates the stream (its `onTermination` runs).
    case stream(status: Int, headers: [HTTPHeader], body: AsyncStream<[UInt8]>)

    /// A complete response with a UTF-8 text body.
    public static func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        .complete(status: status, headers: [HTTPHeader("content-type", contentType)], body: Array(body.utf8))
    }

    /// The status code.
    public var status: Int {
        switch self {
        case .complete(let status, _, _), .stream(let status, _, _): status
        }
    }
}

/// Answers plain HTTP requests arriving on a listener's port (the REST API and Server-Sent
/// Events live behind this hook; the listener only hosts it).
public protocol HTTPHandler: Sendable {
    /// Produces the response to `request`. Called on a Swift task, never on the service thread.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

/// The default handler: every request gets `404` with a JSON error body.
public struct NotFoundHTTPHandler: HTTPHandler {
    /// Creates the handler.
    public init() {}

    /// Answers `404 {"error": "Not Found"}`.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        .text(404, #"{"error":"Not Found"}"#, contentType: "application/json; charset=utf-8")
    }
}
