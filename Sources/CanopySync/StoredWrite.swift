import CanopyTree

/// A user write as the write queue keeps it: the data as the app gave it, server-value
/// placeholders unresolved (client-design.md §7.1, §10.4).
public struct StoredWrite: Sendable {
    /// What was written.
    public enum Payload: Sendable {
        /// A `set` of the node at the path.
        case overwrite(Node)
        /// An `update` of nodes at relative paths below the path.
        case merge([(path: Path, node: Node)])
    }

    /// The write id (strictly increasing).
    public let writeId: Int
    /// The location written.
    public let path: Path
    /// The data.
    public let payload: Payload

    /// Creates a stored write.
    public init(writeId: Int, path: Path, payload: Payload) {
        self.writeId = writeId
        self.path = path
        self.payload = payload
    }
}
