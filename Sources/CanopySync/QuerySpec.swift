import CanopyTree

/// A query as the engine sees it: a location and the parameters that shape its view.
public struct QuerySpec: Sendable, Hashable {
    /// The location queried.
    public let path: Path
    /// The index, range and limit.
    public let params: QueryParams

    /// Creates a query.
    public init(path: Path, params: QueryParams = .default) {
        self.path = path
        self.params = params
    }

    /// The default query at `path`.
    public static func defaultQuery(at path: Path) -> QuerySpec { QuerySpec(path: path) }

    /// The query actually listened for on the wire: queries that load all data share the
    /// default listen of their path.
    public var forListening: QuerySpec {
        params.loadsAllData && !params.isDefault ? .defaultQuery(at: path) : self
    }

    /// The key of the query within a sync tree: its path and its parameters' identifier.
    var treeKey: String { path.wireString + "$" + params.identifier }
}
