import CanopyTree

/// The filter of queries with a start and/or end bound but no limit: drops children outside
/// the range and ignores priorities on the view's root.
public struct RangedFilter: NodeFilter {
    /// The query's parameters.
    public let params: QueryParams

    /// Creates the filter.
    public init(params: QueryParams) { self.params = params }

    /// The query's index.
    public var index: Index { params.index }

    /// Drops children outside the range.
    public var filtersNodes: Bool { true }

    /// The non-filtering filter for the same index.
    public var indexedFilter: IndexedFilter { IndexedFilter(index: params.index) }

    /// Whether a child lies within the range.
    public func matches(_ child: NamedNode) -> Bool { params.matches(child) }

    /// Replaces the child, or removes it when the new child lies outside the range.
    public func updateChild(
        _ node: Node, key: ChildKey, newChild: Node, affectedPath: Path, source: any CompleteChildSource,
        changes: inout ChangeAccumulator
    ) -> Node {
        let child = matches(NamedNode(key: key, node: newChild)) ? newChild : .empty
        return indexedFilter.updateChild(
            node, key: key, newChild: child, affectedPath: affectedPath, source: source, changes: &changes)
    }

    /// Keeps the children of `newNode` within the range, without a root priority.
    public func updateFullNode(old oldNode: Node, new newNode: Node, changes: inout ChangeAccumulator) -> Node {
        let kept = newNode.children.entries.filter { matches(NamedNode(key: $0.0, node: $0.1)) }
        let filtered = Node(children: ChildMap(kept.map { ($0.0, $0.1) }))
        return indexedFilter.updateFullNode(old: oldNode, new: filtered, changes: &changes)
    }

    /// Priorities on the view's root are ignored.
    public func updatePriority(_ node: Node, priority: Node) -> Node { node }
}
