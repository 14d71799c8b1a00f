import CanopyTree

/// One pending user write in a ``WriteTree``.
public struct WriteRecord: Sendable {
    /// What the write replaces.
    public enum Payload: Sendable {
        /// A `set`: the node written at the path.
        case overwrite(Node)
        /// An `update`: nodes written at relative paths below the path (possibly several
        /// segments deep), in the order given.
        case merge([(path: Path, node: Node)])
    }

    /// The write id; ids strictly increase in a write tree.
    public let writeId: Int
    /// The location written.
    public let path: Path
    /// The data written.
    public let payload: Payload
    /// Whether the write shows in event caches (a transaction run with local events off
    /// does not).
    public let isVisible: Bool

    /// Creates a record.
    public init(writeId: Int, path: Path, payload: Payload, isVisible: Bool) {
        self.writeId = writeId
        self.path = path
        self.payload = payload
        self.isVisible = isVisible
    }

    /// The locations this write replaces entirely: the path for a set, each written path of
    /// an update.
    public var touchedPaths: [Path] {
        switch payload {
        case .overwrite: return [path]
        case .merge(let children): return children.map { path.child($0.path) }
        }
    }

    /// Whether this write replaces the data at `other` entirely.
    func covers(_ other: Path) -> Bool {
        touchedPaths.contains { $0.contains(other) }
    }

    /// The merge's children as a compound write rooted at the write's path.
    var mergeWrite: CompoundWrite {
        guard case .merge(let children) = payload else { return .empty }
        return CompoundWrite(writes: children.map { ($0.path, $0.node) })
    }
}
