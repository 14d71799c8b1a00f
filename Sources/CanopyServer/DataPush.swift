import CanopyTree

/// A data push the engine sends to one connection: the body of a `d` or `m` server push
/// (protocol.md §4).
public struct DataPush: Sendable, Equatable {
    /// Whether the push replaces data or merges children into it.
    public enum Kind: Sendable, Equatable {
        /// `d`: the data at ``DataPush/path`` is now exactly ``DataPush/data``.
        case overwrite
        /// `m`: each member of ``DataPush/data`` (a relative path) replaces the data at
        /// ``DataPush/path`` plus that relative path.
        case merge
    }

    /// Overwrite or merge.
    public let kind: Kind
    /// The location the data belongs to.
    public let path: Path
    /// The data in export form (`null` for a deletion); for a merge, an object whose keys are
    /// relative paths.
    public let data: JSONValue
    /// The tag of the query the data belongs to, `nil` for default listens.
    public let tag: Int64?

    /// Creates a push.
    public init(kind: Kind, path: Path, data: JSONValue, tag: Int64?) {
        self.kind = kind
        self.path = path
        self.data = data
        self.tag = tag
    }
}
