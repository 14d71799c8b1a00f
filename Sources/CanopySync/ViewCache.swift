import CanopyTree

/// The two caches of a view: what the user sees and what the server said
/// (client-design.md §3.1).
public struct ViewCache: Sendable {
    /// Server data with pending visible writes layered on top and the query filter applied.
    public let eventCache: CacheNode
    /// Server data only.
    public let serverCache: CacheNode

    /// Creates a view cache.
    public init(eventCache: CacheNode, serverCache: CacheNode) {
        self.eventCache = eventCache
        self.serverCache = serverCache
    }

    /// A copy with a new event cache.
    public func updatingEventCache(_ cache: CacheNode) -> ViewCache {
        ViewCache(eventCache: cache, serverCache: serverCache)
    }

    /// A copy with a new server cache.
    public func updatingServerCache(_ cache: CacheNode) -> ViewCache {
        ViewCache(eventCache: eventCache, serverCache: cache)
    }

    /// The event cache's node when it is complete.
    public var completeEventNode: Node? { eventCache.completeNode }

    /// The server cache's node when it is complete.
    public var completeServerNode: Node? { serverCache.completeNode }
}
