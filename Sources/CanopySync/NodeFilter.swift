import CanopyTree

/// Applies a query's filter to a view's data, recording child changes
/// (client-design.md §3.2).
public protocol NodeFilter: Sendable {
    /// The index the view orders by.
    var index: Index { get }
    /// Whether the filter may drop children.
    var filtersNodes: Bool { get }
    /// The non-filtering filter for the same index.
    var indexedFilter: IndexedFilter { get }

    /// `node` with its child `key` replaced by `newChild` (filtered); `affectedPath` is the
    /// part of the child that changed.
    func updateChild(
        _ node: Node, key: ChildKey, newChild: Node, affectedPath: Path, source: any CompleteChildSource,
        changes: inout ChangeAccumulator
    ) -> Node

    /// `newNode` filtered, replacing `oldNode`.
    func updateFullNode(old oldNode: Node, new newNode: Node, changes: inout ChangeAccumulator) -> Node

    /// `node` with a new priority (or unchanged, for filters that ignore priorities).
    func updatePriority(_ node: Node, priority: Node) -> Node
}
