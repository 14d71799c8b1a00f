import CanopyTree

/// A client → server request action and its body (protocol.md §3.3): the `a` and `b` of
/// `{"t":"d","d":{"r":n,"a":…,"b":{…}}}`. The request number `r` travels beside it in
/// ``WireMessage/request(number:_:)``.
///
/// Paths encode with a leading slash (the client form) and decode with or without one.
/// Data is JSON in export form; turning it into nodes is the consumer's job.
public enum ClientRequest: Sendable, Equatable {
    /// `s`: usage counters (`{"c":{"<counter>":n,…}}`).
    case stats(counters: JSONValue)
    /// `auth`: authenticate with a Firebase token.
    case auth(AuthCredential)
    /// `gauth`: authenticate with a Google OAuth2 access token.
    case googleAuth(AuthCredential)
    /// `unauth`: drop authentication.
    case unauth
    /// `appcheck`: present or refresh an App Check token.
    case appCheck(token: String)
    /// `unappeck`: drop the App Check token (the action is spelled as clients send it).
    case unappCheck
    /// `q`: listen.
    case listen(ListenRequest)
    /// `n`: unlisten the default listen at `path`, or the tagged query `tag`.
    case unlisten(path: Path, query: JSONValue?, tag: Int64?)
    /// `p`: overwrite the data at `path`; with `hash`, a compare-and-set.
    case put(path: Path, data: JSONValue, hash: String?)
    /// `m`: merge; `data` is an object whose keys are relative paths.
    case merge(path: Path, data: JSONValue)
    /// `o`: onDisconnect put.
    case onDisconnectPut(path: Path, data: JSONValue)
    /// `om`: onDisconnect merge; `data` is an object whose keys are relative paths.
    case onDisconnectMerge(path: Path, data: JSONValue)
    /// `oc`: onDisconnect cancel (sent with `"d":null`).
    case onDisconnectCancel(path: Path)
    /// `g`: one-shot get; `query` is the query object, `{}` for a plain location.
    case get(path: Path, query: JSONValue)
    /// An action this library does not know. A server answers it with a non-`ok` status.
    case unknown(action: String, body: JSONValue)

    /// The action string `a`.
    public var action: String {
        switch self {
        case .stats: return "s"
        case .auth: return "auth"
        case .googleAuth: return "gauth"
        case .unauth: return "unauth"
        case .appCheck: return "appcheck"
        case .unappCheck: return "unappeck"
        case .listen: return "q"
        case .unlisten: return "n"
        case .put: return "p"
        case .merge: return "m"
        case .onDisconnectPut: return "o"
        case .onDisconnectMerge: return "om"
        case .onDisconnectCancel: return "oc"
        case .get: return "g"
        case .unknown(let action, _): return action
        }
    }

    /// The body object `b`.
    public var body: JSONValue {
        switch self {
        case .stats(let counters): return .object([JSONMember("c", counters)])
        case .auth(let credential), .googleAuth(let credential): return credential.jsonValue
        case .unauth, .unappCheck: return .object([])
        case .appCheck(let token): return .object([JSONMember("token", .string(token))])
        case .listen(let listen): return listen.jsonValue
        case .unlisten(let path, let query, let tag):
            return .members([("p", .string(path.wireString)), ("q", query), ("t", tag.map { .int($0) })])
        case .put(let path, let data, let hash):
            return .members([("p", .string(path.wireString)), ("d", data), ("h", hash.map { .string($0) })])
        case .merge(let path, let data), .onDisconnectPut(let path, let data),
            .onDisconnectMerge(let path, let data):
            return .object([JSONMember("p", .string(path.wireString)), JSONMember("d", data)])
        case .onDisconnectCancel(let path):
            return .object([JSONMember("p", .string(path.wireString)), JSONMember("d", .null)])
        case .get(let path, let query):
            return .object([JSONMember("p", .string(path.wireString)), JSONMember("q", query)])
        case .unknown(_, let body): return body
        }
    }

    /// The path the request addresses, if it has one.
    public var path: Path? {
        switch self {
        case .listen(let listen): return listen.path
        case .unlisten(let path, _, _), .put(let path, _, _), .merge(let path, _),
            .onDisconnectPut(let path, _), .onDisconnectMerge(let path, _), .onDisconnectCancel(let path),
            .get(let path, _):
            return path
        case .stats, .auth, .googleAuth, .unauth, .appCheck, .unappCheck, .unknown: return nil
        }
    }

    /// Decodes an action and its body. A missing body counts as `{}`; an unknown action
    /// decodes to ``unknown(action:body:)``; a known action with a malformed body throws an
    /// error that carries `requestNumber`.
    public init(action: String, body: JSONValue?, requestNumber: Int64? = nil) throws(WireError) {
        let fields = try MessageFields(
            body ?? .object([]), context: "body of \"\(action)\" request", requestNumber: requestNumber)
        switch action {
        case "s": self = .stats(counters: try fields.optionalObject("c") ?? .object([]))
        case "auth": self = .auth(try AuthCredential(fields: fields))
        case "gauth": self = .googleAuth(try AuthCredential(fields: fields))
        case "unauth": self = .unauth
        case "appcheck": self = .appCheck(token: try fields.string("token"))
        case "unappeck": self = .unappCheck
        case "q": self = .listen(try ListenRequest(fields: fields))
        case "n":
            self = .unlisten(
                path: try fields.path("p"), query: try fields.optionalObject("q"), tag: try fields.optionalInteger("t"))
        case "p":
            self = .put(
                path: try fields.path("p"), data: try fields.required("d"), hash: try fields.optionalString("h"))
        case "m": self = .merge(path: try fields.path("p"), data: try fields.object("d"))
        case "o": self = .onDisconnectPut(path: try fields.path("p"), data: try fields.required("d"))
        case "om": self = .onDisconnectMerge(path: try fields.path("p"), data: try fields.object("d"))
        case "oc": self = .onDisconnectCancel(path: try fields.path("p"))
        case "g": self = .get(path: try fields.path("p"), query: try fields.optionalObject("q") ?? .object([]))
        default: self = .unknown(action: action, body: fields.value)
        }
    }
}
