import CanopyTree

/// Turns a view's changes into ordered events for its registrations (client-design.md §5.4).
public struct EventGenerator: Sendable {
    /// The view's query.
    public let query: QuerySpec

    /// Creates a generator for a query.
    public init(query: QuerySpec) { self.query = query }

    private static let order: [EventType] = [.childRemoved, .childAdded, .childMoved, .childChanged, .value]

    /// The events for `changes` against the new event cache `eventCache`: by type in the order
    /// removed, added, moved, changed, value; within a type in index order; for each change,
    /// one event per interested registration in registration order.
    public func events(
        for changes: [Change], eventCache: Node, registrations: [any EventRegistration]
    ) -> [Event] {
        let index = query.params.index
        // Only the types some registration wants produce events; the others (for example
        // child changes under a value-only listener) need neither sorting nor predecessors.
        let wanted = Set(EventGenerator.order.filter { type in registrations.contains { $0.responds(to: type) } })
        guard !wanted.isEmpty else { return [] }
        var all = changes.filter { wanted.contains($0.type) }
        if wanted.contains(.childMoved) {
            for change in changes where change.type == .childChanged {
                if let key = change.childKey, let old = change.oldNode,
                    index.indexedValueChanged(from: old, to: change.node)
                {
                    all.append(.childMoved(key, change.node))
                }
            }
        }
        let needingPrevious = all.filter { $0.type != .value && $0.type != .childRemoved }.count
        var predecessors = PredecessorLookup(eventCache: eventCache, index: index, lookups: needingPrevious)
        var events: [Event] = []
        for type in EventGenerator.order where wanted.contains(type) {
            var ofType = all.filter { $0.type == type }
            if type != .value {
                ofType.sort { a, b in
                    index.compare(
                        NamedNode(key: a.childKey ?? .min, node: a.node),
                        NamedNode(key: b.childKey ?? .min, node: b.node)
                    ) < 0
                }
            }
            for change in ofType {
                var previous: ChildKey?
                if type != .value && type != .childRemoved, let key = change.childKey {
                    previous = predecessors.key(before: NamedNode(key: key, node: change.node))
                }
                for registration in registrations where registration.responds(to: type) {
                    events.append(
                        Event(
                            kind: .data(type), query: query, node: change.node, childKey: change.childKey,
                            previousChildKey: previous, registration: registration))
                }
            }
        }
        return events
    }
}

/// Finds the key preceding a child in a view's index order: a binary search in the key
/// order for the key index; otherwise a linear scan for a few lookups, or one sort for many.
private struct PredecessorLookup {
    let eventCache: Node
    let index: Index
    let lookups: Int
    private var sorted: [NamedNode]?

    init(eventCache: Node, index: Index, lookups: Int) {
        self.eventCache = eventCache
        self.index = index
        self.lookups = lookups
    }

    mutating func key(before child: NamedNode) -> ChildKey? {
        if index == .key { return eventCache.children.key(before: child.key) }
        if lookups <= 4 {
            var best: NamedNode?
            for (key, node) in eventCache.children.entries where key != child.key {
                let candidate = NamedNode(key: key, node: node)
                if index.compare(candidate, child) < 0, best.map({ index.compare(candidate, $0) > 0 }) ?? true {
                    best = candidate
                }
            }
            return best?.key
        }
        if sorted == nil { sorted = index.sortedChildren(of: eventCache) }
        return PredecessorLookup.predecessor(of: child, in: sorted ?? [], index: index)
    }

    /// The key of the last child sorting strictly before `child` in `sorted`.
    private static func predecessor(of child: NamedNode, in sorted: [NamedNode], index: Index) -> ChildKey? {
        var lo = 0
        var hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid].key != child.key && index.compare(sorted[mid], child) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? sorted[lo - 1].key : nil
    }
}
