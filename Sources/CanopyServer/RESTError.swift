import CanopyTree

/// A REST request that cannot be served as asked: the HTTP status and the message of the
/// `{"error": "…"}` body (protocol.md §11.5).
public struct RESTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status code (400, 401, 404, 405, 412, 413, 500, …).
    public let status: Int
    /// The text of the body's `error` member.
    public let message: String

    /// Creates an error with `status` and `message`.
    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// `400 Bad Request`: unparsable JSON, invalid path, key or parameter.
    public static func badRequest(_ message: String) -> RESTError {
        RESTError(status: 400, message: message)
    }

    /// `401 Unauthorized` with the body `{"error": "Permission denied"}`: the access policy
    /// refused, or the location is `.info`.
    public static let permissionDenied = RESTError(status: 401, message: "Permission denied")

    /// The error response: the status, a JSON content type, and `{"error": message}`.
    public var response: RESTResponse {
        RESTResponse.json(.object([JSONMember("error", .string(message))]), status: status)
    }

    /// The status and the message.
    public var description: String { "\(status) \(message)" }
}
