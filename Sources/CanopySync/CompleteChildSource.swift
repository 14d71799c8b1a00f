import CanopyTree

/// Where a filter may look up children it does not hold: writes layered over the best
/// complete server data (client-design.md §3.2, §6.4).
public protocol CompleteChildSource {
    /// The complete child `key`, or `nil` when it is not known completely.
    func completeChild(_ key: ChildKey) -> Node?

    /// The first complete child strictly after `child` in `index` order (before it when
    /// `reverse`), or `nil`.
    func child(after child: NamedNode, index: Index, reverse: Bool) -> NamedNode?
}

/// A source that knows nothing: used where a filter must not pull in data.
public struct NoCompleteChildSource: CompleteChildSource {
    /// Creates the source.
    public init() {}

    /// Always `nil`.
    public func completeChild(_ key: ChildKey) -> Node? { nil }

    /// Always `nil`.
    public func child(after child: NamedNode, index: Index, reverse: Bool) -> NamedNode? { nil }
}

/// A source backed by a view's caches, the pending writes and an optional complete server
/// cache passed down from an ancestor.
public struct WriteTreeCompleteChildSource: CompleteChildSource {
    /// The pending writes at the view's path.
    public let writes: WriteTreeRef
    /// The view's caches.
    public let viewCache: ViewCache
    /// A complete server cache from an ancestor, if one was found.
    public let completeServerCache: Node?

    /// Creates the source.
    public init(writes: WriteTreeRef, viewCache: ViewCache, completeServerCache: Node?) {
        self.writes = writes
        self.viewCache = viewCache
        self.completeServerCache = completeServerCache
    }

    /// The event cache's child when complete there, else writes over the server cache.
    public func completeChild(_ key: ChildKey) -> Node? {
        let eventCache = viewCache.eventCache
        if eventCache.isComplete(forChild: key) { return eventCache.node.child(key) }
        let serverCache = completeServerCache.map { CacheNode(node: $0, isFullyInitialized: true, isFiltered: false) }
            ?? viewCache.serverCache
        return writes.calcCompleteChild(key, serverCache: serverCache)
    }

    /// The next child from writes layered over the best complete server data.
    public func child(after child: NamedNode, index: Index, reverse: Bool) -> NamedNode? {
        let serverData = completeServerCache ?? viewCache.completeServerNode
        return writes.calcIndexedSlice(
            completeServerData: serverData, after: child, count: 1, reverse: reverse, index: index
        ).first
    }
}
