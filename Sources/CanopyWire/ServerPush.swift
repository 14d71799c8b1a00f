import CanopyTree

/// A message the server sends without a request (protocol.md §4): the `a` and `b` of
/// `{"t":"d","d":{"a":…,"b":{…}}}`.
///
/// Paths encode without a leading slash (the server form) and decode with or without one.
public enum ServerPush: Sendable, Equatable {
    /// `d`: the server's data at `path` is now exactly `data` (export form; `null` deleted).
    /// `tag` is present for data belonging to a tagged query.
    case data(path: Path, data: JSONValue, tag: Int64?)
    /// `m`: each key of `data` (a relative path) replaces the data at `path/<key>`.
    case merge(path: Path, data: JSONValue, tag: Int64?)
    /// `rm`: range merge (answer to a compound hash; iOS/Android only). `ranges` is the
    /// array of `{"s":…,"e":…,"m":…}` entries.
    case rangeMerge(path: Path, ranges: JSONValue, tag: Int64?)
    /// `c`: the listens at `path` are revoked. `queries` is the one-element array holding the
    /// revoked query object for a tagged query, `nil` for the default listen.
    case listenRevoked(path: Path, queries: JSONValue?)
    /// `ac`: the connection's authentication is revoked.
    case authRevoked(status: StatusCode, reason: String?)
    /// `apc`: the App Check token is revoked.
    case appCheckRevoked(status: StatusCode, reason: String?)
    /// `sd`: security debug output.
    case securityDebug(message: String)
    /// An action this library does not know; clients ignore it.
    case unknown(action: String, body: JSONValue)

    /// The action string `a`.
    public var action: String {
        switch self {
        case .data: return "d"
        case .merge: return "m"
        case .rangeMerge: return "rm"
        case .listenRevoked: return "c"
        case .authRevoked: return "ac"
        case .appCheckRevoked: return "apc"
        case .securityDebug: return "sd"
        case .unknown(let action, _): return action
        }
    }

    /// The body object `b`.
    public var body: JSONValue {
        switch self {
        case .data(let path, let data, let tag), .merge(let path, let data, let tag),
            .rangeMerge(let path, let data, let tag):
            return .members([("p", .string(path.serverString)), ("d", data), ("t", tag.map { .int($0) })])
        case .listenRevoked(let path, let queries):
            return .members([("p", .string(path.serverString)), ("q", queries)])
        case .authRevoked(let status, let reason), .appCheckRevoked(let status, let reason):
            return .members([("s", .string(status.rawValue)), ("d", reason.map { .string($0) })])
        case .securityDebug(let message):
            return .object([JSONMember("msg", .string(message))])
        case .unknown(_, let body):
            return body
        }
    }

    /// Decodes a push action and its body; unknown actions decode to
    /// ``unknown(action:body:)``.
    public init(action: String, body: JSONValue?) throws(WireError) {
        let fields = try MessageFields(body ?? .object([]), context: "body of \"\(action)\" push")
        switch action {
        case "d":
            self = .data(
                path: try fields.path("p"), data: try fields.required("d"), tag: try fields.optionalInteger("t"))
        case "m":
            self = .merge(
                path: try fields.path("p"), data: try fields.object("d"), tag: try fields.optionalInteger("t"))
        case "rm":
            let ranges = try fields.required("d")
            guard case .array = ranges else {
                throw fields.error("field \"d\" must be an array, got \(MessageFields.describe(ranges))")
            }
            self = .rangeMerge(path: try fields.path("p"), ranges: ranges, tag: try fields.optionalInteger("t"))
        case "c":
            let queries = fields["q"].flatMap { $0 == .null ? nil : $0 }
            if let queries {
                guard case .array = queries else {
                    throw fields.error("field \"q\" must be an array, got \(MessageFields.describe(queries))")
                }
            }
            self = .listenRevoked(path: try fields.path("p"), queries: queries)
        case "ac":
            self = .authRevoked(status: StatusCode(try fields.string("s")), reason: try fields.optionalString("d"))
        case "apc":
            self = .appCheckRevoked(status: StatusCode(try fields.string("s")), reason: try fields.optionalString("d"))
        case "sd":
            self = .securityDebug(message: try fields.string("msg"))
        default:
            self = .unknown(action: action, body: fields.value)
        }
    }
}
