import CanopyTree

/// The body of a `q` (listen) request (protocol.md §3.4.4).
///
/// A default listen has neither ``query`` nor ``tag``; a filtered (tagged) listen has both.
public struct ListenRequest: Sendable, Equatable {
    /// The location (`p`).
    public var path: Path
    /// The query object (`q`, protocol.md §5.1), present only for tagged queries.
    public var query: JSONValue?
    /// The client-chosen tag (`t`), present exactly when ``query`` is.
    public var tag: Int64?
    /// The simple hash (`h`) of the data the client has cached for this view; `""` for none.
    public var hash: String
    /// The optional compound hash (`ch`, `{"ps":[…],"hs":[…]}`) sent by iOS and Android.
    public var compoundHash: JSONValue?

    /// Creates a listen body.
    public init(
        path: Path, query: JSONValue? = nil, tag: Int64? = nil, hash: String = "", compoundHash: JSONValue? = nil
    ) {
        self.path = path
        self.query = query
        self.tag = tag
        self.hash = hash
        self.compoundHash = compoundHash
    }

    /// The body object, in the clients' member order: `p`, `q`, `t`, `h`, `ch`.
    public var jsonValue: JSONValue {
        .members([
            ("p", .string(path.wireString)),
            ("q", query),
            ("t", tag.map { .int($0) }),
            ("h", .string(hash)),
            ("ch", compoundHash),
        ])
    }

    init(fields: MessageFields) throws(WireError) {
        self.init(
            path: try fields.path("p"),
            query: try fields.optionalObject("q"),
            tag: try fields.optionalInteger("t"),
            hash: try fields.optionalString("h") ?? "",
            compoundHash: try fields.optionalObject("ch"))
    }
}
