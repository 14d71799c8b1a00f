import CanopyTree

/// A server's answer to one request: the `b` of `{"t":"d","d":{"r":n,"b":{"s":…,"d":…}}}`
/// (protocol.md §3.1). The request number travels beside it in
/// ``WireMessage/response(number:_:)``.
///
/// ``data`` distinguishes "absent" (`nil`, no `d` member) from an explicit `null`
/// (`.null`, which an `ok` get uses for an empty location).
public struct ServerResponse: Sendable, Equatable {
    /// The status string (`s`).
    public var status: StatusCode
    /// The payload (`d`): a reason string on errors, `{}`/`{"w":[…]}` for an `ok` listen,
    /// the data for an `ok` get; `nil` when absent.
    public var data: JSONValue?

    /// Creates a response.
    public init(status: StatusCode, data: JSONValue? = nil) {
        self.status = status
        self.data = data
    }

    /// A plain `{"s":"ok"}`.
    public static let ok = ServerResponse(status: .ok)

    /// A non-`ok` response with a human-readable reason as `d`.
    public static func failure(_ status: StatusCode, _ reason: String) -> ServerResponse {
        ServerResponse(status: status, data: .string(reason))
    }

    /// The response to a request that could not be decoded: `invalid_data` with the
    /// error's message.
    public static func rejecting(_ error: WireError) -> ServerResponse {
        .failure(.invalidData, error.message)
    }

    /// The reason string of a non-`ok` response, when `d` is a string.
    public var reason: String? { data?.stringValue }

    /// The body object `{"s":…[,"d":…]}`.
    public var jsonValue: JSONValue {
        .members([("s", .string(status.rawValue)), ("d", data)])
    }

    /// Decodes a response body.
    public init(json: JSONValue, requestNumber: Int64? = nil) throws(WireError) {
        let fields = try MessageFields(json, context: "response body", requestNumber: requestNumber)
        self.init(status: StatusCode(try fields.string("s")), data: fields["d"])
    }
}
