import CanopyTree

/// One listen a connection holds: a default listen at a path, or a tagged (filtered) query.
struct ServerListen: Sendable {
    /// The listened location.
    let path: Path
    /// The tag of a filtered query; `nil` for the default listen at ``path``.
    let tag: Int64?
    /// The query of a tagged listen; `nil` for a default listen.
    let query: QueryParams?
    /// The query object exactly as the client sent it (used to name the query in a revocation).
    let wireQuery: JSONValue?
    /// The result last sent for a tagged query, so that only changes are pushed.
    var lastResult: Node

    /// Whether this listen is the one an unlisten for (`path`, `tag`) names.
    func matches(path other: Path, tag otherTag: Int64?) -> Bool {
        path == other && tag == otherTag
    }
}
