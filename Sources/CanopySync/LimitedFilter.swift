import CanopyTree

/// The filter of queries with a limit: keeps at most `limit` in-range children counted from
/// the anchored side, refilling the window from a complete-child source when a child leaves
/// it (client-design.md §6.4).
public struct LimitedFilter: NodeFilter {
    /// The range part of the query.
    public let rangedFilter: RangedFilter
    /// The maximum number of children.
    public let limit: Int
    /// Whether the window is anchored at the end (`limitToLast`).
    public let reverse: Bool

    /// Creates the filter; `params` must have a limit.
    public init(params: QueryParams) {
        rangedFilter = RangedFilter(params: params)
        limit = params.limit?.count ?? Int.max
        reverse = params.limit?.anchor == .last
    }

    /// The query's index.
    public var index: Index { rangedFilter.index }

    /// Drops children outside the window.
    public var filtersNodes: Bool { true }

    /// The non-filtering filter for the same index.
    public var indexedFilter: IndexedFilter { rangedFilter.indexedFilter }

    /// Index order seen from the anchored side.
    private func compare(_ a: NamedNode, _ b: NamedNode) -> Int {
        reverse ? index.compare(b, a) : index.compare(a, b)
    }

    /// Replaces one child, keeping the window full and correctly bounded.
    public func updateChild(
        _ node: Node, key: ChildKey, newChild: Node, affectedPath: Path, source: any CompleteChildSource,
        changes: inout ChangeAccumulator
    ) -> Node {
        let child = rangedFilter.matches(NamedNode(key: key, node: newChild)) ? newChild : .empty
        if node.child(key) == child { return node }
        if node.childCount < limit {
            return indexedFilter.updateChild(
                node, key: key, newChild: child, affectedPath: affectedPath, source: source, changes: &changes)
        }
        return fullWindowUpdate(node, key: key, newChild: child, source: source, changes: &changes)
    }

    /// The window's child furthest from the anchored end (the last in index order, the
    /// first for a `limitToLast` window): one linear scan instead of a sort per update.
    private func windowBoundary(of node: Node) -> NamedNode? {
        var boundary: NamedNode?
        for (key, child) in node.children.entries {
            let candidate = NamedNode(key: key, node: child)
            guard let current = boundary else {
                boundary = candidate
                continue
            }
            let order = index.compare(candidate, current)
            if reverse ? order < 0 : order > 0 { boundary = candidate }
        }
        return boundary
    }

    private func fullWindowUpdate(
        _ node: Node, key: ChildKey, newChild: Node, source: any CompleteChildSource, changes: inout ChangeAccumulator
    ) -> Node {
        guard let boundary = windowBoundary(of: node) else { return node }
        let named = NamedNode(key: key, node: newChild)
        let inRange = rangedFilter.matches(named)
        if let oldChild = node.children[key] {
            var next = source.child(after: boundary, index: index, reverse: reverse)
            while let candidate = next, candidate.key == key || node.hasChild(candidate.key) {
                // A child already in the window (updated later in the same merge): skip it.
                next = source.child(after: candidate, index: index, reverse: reverse)
            }
            let compareNext = next.map { compare($0, named) } ?? 1
            if inRange && !newChild.isEmpty && compareNext >= 0 {
                changes.track(.childChanged(key, newChild, old: oldChild))
                return node.updatingChild(key, newChild)
            }
            changes.track(.childRemoved(key, oldChild))
            let removed = node.updatingChild(key, .empty)
            if let next, rangedFilter.matches(next) {
                changes.track(.childAdded(next.key, next.node))
                return removed.updatingChild(next.key, next.node)
            }
            return removed
        }
        if newChild.isEmpty || !inRange { return node }
        if compare(boundary, named) >= 0 {
            changes.track(.childRemoved(boundary.key, boundary.node))
            changes.track(.childAdded(key, newChild))
            return node.updatingChild(key, newChild).updatingChild(boundary.key, .empty)
        }
        return node
    }

    /// Keeps the first `limit` in-range children of `newNode` from the anchored side.
    public func updateFullNode(old oldNode: Node, new newNode: Node, changes: inout ChangeAccumulator) -> Node {
        var kept: [(ChildKey, Node)] = []
        if !newNode.isLeaf {
            let sorted = index.sortedChildren(of: newNode)
            for child in reverse ? sorted.reversed() : sorted {
                if kept.count >= limit { break }
                if rangedFilter.matches(child) { kept.append((child.key, child.node)) }
            }
        }
        return indexedFilter.updateFullNode(old: oldNode, new: Node(children: ChildMap(kept)), changes: &changes)
    }

    /// Priorities on the view's root are ignored.
    public func updatePriority(_ node: Node, priority: Node) -> Node { node }
}
