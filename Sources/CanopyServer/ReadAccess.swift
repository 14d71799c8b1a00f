import CanopyTree

/// A read an ``AccessPolicy`` is asked about: a listen or a one-shot get.
public struct ReadAccess: Sendable {
    /// The location read.
    public let path: Path
    /// The query object as the client sent it (`nil` for a plain location).
    public let query: JSONValue?
    /// Who is reading.
    public let auth: ConnectionAuth
    /// The whole current tree (rules' `root`).
    public let root: Node
    /// The server time in milliseconds (rules' `now`).
    public let now: Int64

    /// Creates a read description.
    public init(path: Path, query: JSONValue?, auth: ConnectionAuth, root: Node, now: Int64) {
        self.path = path
        self.query = query
        self.auth = auth
        self.root = root
        self.now = now
    }
}
