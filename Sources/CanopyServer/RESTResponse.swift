import CanopyTree

/// A complete HTTP response of the REST API: status, header fields and body.
public struct RESTResponse: Sendable, Equatable {
    /// The content type of JSON bodies.
    public static let jsonContentType = "application/json; charset=utf-8"

    /// The HTTP status code.
    public var status: Int
    /// The header fields (`Content-Type`, `ETag`, …); the HTTP server adds framing headers
    /// such as `Content-Length`.
    public var headers: RESTHeaders
    /// The body bytes (empty for `204` and `304`).
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: RESTHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `value` serialized (indented when `pretty`) with the JSON content type.
    public static func json(_ value: JSONValue, status: Int = 200, pretty: Bool = false) -> RESTResponse {
        RESTResponse(
            status: status, headers: ["Content-Type": jsonContentType], body: value.serializedBytes(pretty: pretty))
    }

    /// The body decoded as UTF-8 text.
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }
}
