import CanopyTree

/// The filter of queries that load all data: keeps every child and reports what changed.
public struct IndexedFilter: NodeFilter {
    /// The index the view orders by.
    public let index: Index

    /// Creates the filter.
    public init(index: Index) { self.index = index }

    /// Never drops children.
    public var filtersNodes: Bool { false }

    /// Itself.
    public var indexedFilter: IndexedFilter { self }

    /// Replaces the child and records an added, removed or changed child.
    public func updateChild(
        _ node: Node, key: ChildKey, newChild: Node, affectedPath: Path, source: any CompleteChildSource,
        changes: inout ChangeAccumulator
    ) -> Node {
        let oldChild = node.child(key)
        if oldChild.child(at: affectedPath) == newChild.child(at: affectedPath) && oldChild.isEmpty == newChild.isEmpty {
            return node
        }
        if newChild.isEmpty {
            if node.hasChild(key) { changes.track(.childRemoved(key, oldChild)) }
        } else if oldChild.isEmpty {
            changes.track(.childAdded(key, newChild))
        } else {
            changes.track(.childChanged(key, newChild, old: oldChild))
        }
        if node.isLeaf && newChild.isEmpty { return node }
        return node.updatingChild(key, newChild)
    }

    /// Takes `newNode` whole, recording every child that was removed, added or changed.
    public func updateFullNode(old oldNode: Node, new newNode: Node, changes: inout ChangeAccumulator) -> Node {
        for (key, child) in oldNode.children.entries where !newNode.hasChild(key) {
            changes.track(.childRemoved(key, child))
        }
        for (key, child) in newNode.children.entries {
            if let old = oldNode.children[key] {
                if old != child { changes.track(.childChanged(key, child, old: old)) }
            } else {
                changes.track(.childAdded(key, child))
            }
        }
        return newNode
    }

    /// Sets the priority (the empty node stays empty).
    public func updatePriority(_ node: Node, priority: Node) -> Node {
        node.isEmpty ? .empty : node.withPriority(priority.leafValue)
    }
}
