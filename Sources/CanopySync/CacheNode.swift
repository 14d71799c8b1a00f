import CanopyTree

/// A cached node with what is known about its completeness (client-design.md §3.1).
public struct CacheNode: Sendable {
    /// The cached data.
    public let node: Node
    /// Whether the node was at some moment the true state of the location.
    public let isFullyInitialized: Bool
    /// Whether a query filter may have removed children.
    public let isFiltered: Bool

    /// Creates a cache node.
    public init(node: Node, isFullyInitialized: Bool, isFiltered: Bool) {
        self.node = node
        self.isFullyInitialized = isFullyInitialized
        self.isFiltered = isFiltered
    }

    /// An empty, incomplete cache.
    public static let empty = CacheNode(node: .empty, isFullyInitialized: false, isFiltered: false)

    /// Whether the data at `path` is known completely.
    public func isComplete(at path: Path) -> Bool {
        guard let front = path.front else { return isFullyInitialized && !isFiltered }
        return isComplete(forChild: front)
    }

    /// Whether the child `key` is known completely (the whole node is, or the node has it).
    public func isComplete(forChild key: ChildKey) -> Bool {
        (isFullyInitialized && !isFiltered) || node.hasChild(key)
    }

    /// The node when it is complete, else `nil`.
    public var completeNode: Node? { isFullyInitialized ? node : nil }
}
