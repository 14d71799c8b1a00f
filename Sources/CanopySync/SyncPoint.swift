import CanopyTree

/// The views at one location, keyed by query identifier (client-design.md §2.4).
public final class SyncPoint {
    /// The views in the order they were created.
    public private(set) var views: [View] = []

    /// An empty sync point.
    public init() {}

    /// Whether no view is left.
    public var isEmpty: Bool { views.isEmpty }

    /// The view for a query identifier.
    public func view(withIdentifier identifier: String) -> View? {
        views.first { $0.query.params.identifier == identifier }
    }

    /// A view whose query loads all data, if any.
    public var completeView: View? { views.first { $0.query.params.loadsAllData } }

    /// Whether some view loads all data.
    public var hasCompleteView: Bool { completeView != nil }

    /// The filtering views (each needs its own tagged listen unless shadowed).
    public var queryViews: [View] { views.filter { !$0.query.params.loadsAllData } }

    /// The view answering `query`: any complete view for a query that loads all data, else
    /// the view with the query's identifier.
    public func view(for query: QuerySpec) -> View? {
        query.params.loadsAllData ? completeView : view(withIdentifier: query.params.identifier)
    }

    /// A complete server cache at `path` below this location from any view, or `nil`.
    public func completeServerCache(at path: Path) -> Node? {
        for view in views {
            if let node = view.completeServerCache(at: path) { return node }
        }
        return nil
    }

    /// Applies an operation: tagged data to the view it names, anything else to every view.
    public func apply(_ operation: Operation, writes: WriteTreeRef, completeServerCache: Node?) -> [Event] {
        if let identifier = operation.source.queryIdentifier {
            guard let view = view(withIdentifier: identifier) else { return [] }
            return view.apply(operation, writes: writes, completeServerCache: completeServerCache)
        }
        var events: [Event] = []
        for view in views {
            events += view.apply(operation, writes: writes, completeServerCache: completeServerCache)
        }
        return events
    }

    /// The view for `query`, or a new one (not yet added) built from the writes and the
    /// best server cache known.
    func viewOrNew(for query: QuerySpec, writes: WriteTreeRef, serverCache: Node, serverCacheComplete: Bool) -> View {
        if let view = view(withIdentifier: query.params.identifier) { return view }
        var eventNode = writes.calcCompleteEventCache(serverCache: serverCacheComplete ? serverCache : nil)
        var eventComplete = eventNode != nil
        if eventNode == nil {
            eventNode = serverCache.isLeaf ? .empty : writes.calcCompleteEventChildren(serverChildren: serverCache)
            eventComplete = false
        }
        let cache = ViewCache(
            eventCache: CacheNode(node: eventNode ?? .empty, isFullyInitialized: eventComplete, isFiltered: false),
            serverCache: CacheNode(node: serverCache, isFullyInitialized: serverCacheComplete, isFiltered: false))
        return View(query: query, initialCache: cache)
    }

    /// Adds a registration, creating the query's view when needed, and returns the
    /// registration's initial events.
    public func addRegistration(
        _ registration: any EventRegistration, for query: QuerySpec, writes: WriteTreeRef, serverCache: Node,
        serverCacheComplete: Bool
    ) -> [Event] {
        let view = viewOrNew(
            for: query, writes: writes, serverCache: serverCache, serverCacheComplete: serverCacheComplete)
        if !views.contains(where: { $0 === view }) { views.append(view) }
        view.add(registration)
        return view.initialEvents(for: registration)
    }

    /// Removes a registration (or all, when `nil`) from the query's view, or from every view
    /// for the default query. Returns the queries that stopped being needed — each filtering
    /// view that emptied, plus the default query once when the last complete view went —
    /// and any cancel events.
    public func removeRegistration(
        _ registration: (any EventRegistration)?, for query: QuerySpec, cancelReason: String?
    ) -> (removed: [QuerySpec], events: [Event]) {
        var removed: [QuerySpec] = []
        var events: [Event] = []
        let hadCompleteView = hasCompleteView
        let targets = query.params.isDefault ? views : views.filter { $0.query.params.identifier == query.params.identifier }
        for view in targets {
            events += view.remove(registration, cancelReason: cancelReason)
            if view.isEmpty {
                views.removeAll { $0 === view }
                if !view.query.params.loadsAllData { removed.append(view.query) }
            }
        }
        if hadCompleteView && !hasCompleteView { removed.append(.defaultQuery(at: query.path)) }
        return (removed, events)
    }
}
