import CanopyTree

/// The live state of one query at one location: its caches, its registrations and the
/// machinery that turns operations into events (client-design.md §2, §3, §5).
public final class View {
    /// The query the view answers.
    public let query: QuerySpec
    /// The view's caches.
    public private(set) var cache: ViewCache
    /// The registrations, in the order they were added.
    public private(set) var registrations: [any EventRegistration] = []
    private let processor: ViewProcessor
    private let generator: EventGenerator

    /// Creates a view from initial caches: the server cache is re-indexed but not filtered,
    /// the event cache goes through the query's full filter.
    public init(query: QuerySpec, initialCache: ViewCache) {
        self.query = query
        let params = query.params
        let filter: any NodeFilter
        if params.limit != nil {
            filter = LimitedFilter(params: params)
        } else if params.start != nil || params.end != nil {
            filter = RangedFilter(params: params)
        } else {
            filter = IndexedFilter(index: params.index)
        }
        var ignoredServerChanges = ChangeAccumulator.discarding
        var ignoredEventChanges = ChangeAccumulator.discarding
        let serverNode = filter.indexedFilter.updateFullNode(
            old: .empty, new: initialCache.serverCache.node, changes: &ignoredServerChanges)
        let eventNode = filter.updateFullNode(
            old: .empty, new: initialCache.eventCache.node, changes: &ignoredEventChanges)
        cache = ViewCache(
            eventCache: CacheNode(
                node: eventNode, isFullyInitialized: initialCache.eventCache.isFullyInitialized,
                isFiltered: filter.filtersNodes),
            serverCache: CacheNode(
                node: serverNode, isFullyInitialized: initialCache.serverCache.isFullyInitialized, isFiltered: false))
        processor = ViewProcessor(filter: filter)
        generator = EventGenerator(query: query)
    }

    /// Whether no registration is left.
    public var isEmpty: Bool { registrations.isEmpty }

    /// The server cache's node (complete or not).
    public var serverCacheNode: Node { cache.serverCache.node }

    /// The server cache at `path` below the view, when it is known completely: any path for
    /// a view that loads all data, only paths into a child the view holds otherwise.
    public func completeServerCache(at path: Path) -> Node? {
        guard let node = cache.completeServerNode else { return nil }
        if query.params.loadsAllData { return node.child(at: path) }
        if let front = path.front, !node.child(front).isEmpty { return node.child(at: path) }
        return nil
    }

    /// Adds a registration.
    public func add(_ registration: any EventRegistration) {
        registrations.append(registration)
    }

    /// Removes one registration (the first identical one), or all when `registration` is
    /// `nil`. With a `cancelReason`, every registration that wants it gets a cancel event
    /// first.
    public func remove(_ registration: (any EventRegistration)?, cancelReason: String? = nil) -> [Event] {
        var events: [Event] = []
        if let cancelReason {
            for existing in registrations where existing.receivesCancel {
                events.append(
                    Event(
                        kind: .cancel(reason: cancelReason), query: query, node: .empty, childKey: nil,
                        previousChildKey: nil, registration: existing))
            }
        }
        if let registration {
            if let index = registrations.firstIndex(where: { $0 === registration }) {
                registrations.remove(at: index)
            }
        } else {
            registrations.removeAll()
        }
        return events
    }

    /// Applies an operation and returns the events for every registration.
    public func apply(_ operation: Operation, writes: WriteTreeRef, completeServerCache: Node?) -> [Event] {
        let result = processor.apply(operation, to: cache, writes: writes, completeServerCache: completeServerCache)
        cache = result.cache
        return generator.events(for: result.changes, eventCache: cache.eventCache.node, registrations: registrations)
    }

    /// The events a new registration receives: `child_added` for every child in the event
    /// cache, then `value` when the event cache is complete (client-design.md §5.3).
    public func initialEvents(for registration: any EventRegistration) -> [Event] {
        let eventCache = cache.eventCache
        var changes = eventCache.node.children.entries.map { Change.childAdded($0.0, $0.1) }
        if eventCache.isFullyInitialized { changes.append(.value(eventCache.node)) }
        return generator.events(for: changes, eventCache: eventCache.node, registrations: [registration])
    }
}
