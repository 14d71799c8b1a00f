import CanopyTree

/// One event of a REST stream (protocol.md §11.7): an `event:` line, one `data:` line and
/// an empty line.
public struct ServerSentEvent: Sendable, Equatable {
    /// The event name: `put`, `patch`, `keep-alive`, `cancel` or `auth_revoked`.
    public let name: String
    /// The single-line data: JSON for every event except `auth_revoked`.
    public let data: String

    /// Creates an event. `data` must not contain a line break.
    public init(name: String, data: String) {
        self.name = name
        self.data = data
    }

    /// `put`: the data at `path` (relative to the stream's location, `/` for the location
    /// itself) is now `data` (`null` = deleted).
    public static func put(path: Path, data: JSONValue) -> ServerSentEvent {
        located("put", path: path, data: data)
    }

    /// `patch`: each member of `data` (a relative path, possibly with several keys) replaces
    /// the data at `path` plus that member's path.
    public static func patch(path: Path, data: JSONValue) -> ServerSentEvent {
        located("patch", path: path, data: data)
    }

    /// `keep-alive` with data `null`: nothing changed.
    public static let keepAlive = ServerSentEvent(name: "keep-alive", data: "null")

    /// `cancel` with data `null`: the location is no longer readable; the stream ends.
    public static let cancel = ServerSentEvent(name: "cancel", data: "null")

    /// `auth_revoked` with the bare text `credential is no longer valid`: the credential
    /// expired; the stream ends.
    public static let authRevoked = ServerSentEvent(name: "auth_revoked", data: "credential is no longer valid")

    /// The event as sent: `event: <name>\ndata: <data>\n\n`.
    public var text: String {
        "event: \(name)\ndata: \(data)\n\n"
    }

    /// ``text`` as UTF-8 bytes.
    public var bytes: [UInt8] {
        Array(text.utf8)
    }

    /// An event whose data is `{"path": …, "data": …}`.
    private static func located(_ name: String, path: Path, data: JSONValue) -> ServerSentEvent {
        let body = JSONValue.object([JSONMember("path", .string(path.wireString)), JSONMember("data", data)])
        return ServerSentEvent(name: name, data: body.serialized())
    }
}
