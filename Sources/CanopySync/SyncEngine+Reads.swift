import CanopyTree
import CanopyWire

extension SyncEngine {
    /// Reads `query` once (client-design.md §11.1): server first, then the cache, else an
    /// error — never an indefinite wait.
    ///
    /// - Connected: a `get` asks the server; its answer is applied as server data and
    ///   returned.
    /// - Not connected, with a complete cached value (a complete server cache at or above
    ///   the location with pending writes layered on, or a write covering it): that value,
    ///   at once.
    /// - Not connected without one: the `get` waits at most
    ///   ``Configuration/getOfflineTimeout`` for a connection (a get whose connection drops
    ///   before its answer waits again as long, from the drop).
    /// - When that wait expires, the cached value if it has become complete meanwhile, else
    ///   ``DatabaseError/Code/offline``.
    ///
    /// Other server errors (such as `permission_denied`) fail the read. `completion` runs on
    /// the executor.
    public func getData(_ query: QuerySpec, completion: @escaping @Sendable (Result<Node, DatabaseError>) -> Void) {
        wire()
        do {
            try TreeValidation.validateReadPath(query.path)
        } catch {
            let failure = DatabaseError(error)
            complete { completion(.failure(failure)) }
            return
        }
        if query.path.front == Self.infoKey {
            let node = infoProvider.value(at: query.path)
            let answer = query.params.loadsAllData ? node : query.params.filter(node)
            complete { completion(.success(answer)) }
            return
        }
        if !connection.isConnected, let cached = cachedValue(of: query) {
            complete { completion(.success(cached)) }
            return
        }
        connection.get(
            .get(path: query.path, query: query.params.wireObject), offlineTimeout: configuration.getOfflineTimeout
        ) { response in
            self.getAnswered(query, response: response, completion: completion)
        }
    }

    /// Reads `query` once; see ``getData(_:completion:)``.
    public func getData(_ query: QuerySpec) async throws(DatabaseError) -> Node {
        let result = await withCheckedContinuation { continuation in
            getData(query) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    private func getAnswered(
        _ query: QuerySpec, response: ServerResponse,
        completion: @escaping @Sendable (Result<Node, DatabaseError>) -> Void
    ) {
        guard response.status.isOK else {
            let failure: DatabaseError
            if response.status == PersistentConnection.offlineStatus {
                if let cached = cachedValue(of: query) {
                    complete { completion(.success(cached)) }
                    return
                }
                failure = DatabaseError(
                    .offline,
                    "Unable to get the latest value for \(query.path): the client is offline with no active "
                        + "listener and no cached data")
            } else {
                failure = DatabaseError(status: response.status, reason: response.reason)
            }
            complete { completion(.failure(failure)) }
            return
        }
        let node: Node
        do {
            node = try Node(json: response.data ?? .null)
        } catch {
            let failure = DatabaseError(.invalidData, "the server answered with invalid data: \(error)")
            complete { completion(.failure(failure)) }
            return
        }
        if query.params.loadsAllData {
            raise(serverTree.applyServerOverwrite(path: query.path, node: node))
        } else {
            // The answer belongs to this query's view only: apply it through a temporary
            // view (without a listen) under the query's tag.
            let temporary = ObserverRegistration(eventTypes: [])
            listenProvider.isSuppressed = true
            raise(serverTree.addEventRegistration(temporary, for: query))
            if let tag = serverTree.tag(for: query) {
                raise(serverTree.applyTaggedQueryOverwrite(path: query.path, node: node, tag: tag))
            }
            raise(serverTree.removeEventRegistration(temporary, for: query))
            listenProvider.isSuppressed = false
        }
        rerunTransactions(at: query.path)
        complete { completion(.success(node)) }
    }

    /// The value of `query` the client knows completely (cached server data with pending
    /// writes layered on), filtered by the query; `nil` when it is not known completely.
    private func cachedValue(of query: QuerySpec) -> Node? {
        guard let cached = serverTree.calcCompleteEventCache(at: query.path, includingHidden: false) else {
            return nil
        }
        return query.params.loadsAllData ? cached : query.params.filter(cached)
    }

    /// Keeps `query` synchronized without observers (`keepSynced`, client-design.md §8).
    ///
    /// Pins are counted per query: every `keepSynced(query, true)` adds a pin and every
    /// `keepSynced(query, false)` removes one (never below zero; unpinning an unpinned query
    /// does nothing). While a query has at least one pin, a registration that receives no
    /// callbacks keeps its view and listen; the last unpin removes it.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for `.info` locations.
    public func keepSynced(_ query: QuerySpec, _ enabled: Bool) throws(DatabaseError) {
        wire()
        if query.path.front == Self.infoKey {
            throw DatabaseError(.invalidArgument, "keepSynced cannot be used on .info locations")
        }
        if enabled {
            if let pin = pins[query] {
                pins[query] = (pin.registration, pin.count + 1)
                return
            }
            let sentinel = ObserverRegistration(eventTypes: [])
            pins[query] = (sentinel, 1)
            raise(serverTree.addEventRegistration(sentinel, for: query))
        } else {
            guard let pin = pins[query] else { return }
            if pin.count > 1 {
                pins[query] = (pin.registration, pin.count - 1)
                return
            }
            pins[query] = nil
            raise(serverTree.removeEventRegistration(pin.registration, for: query))
        }
    }

    /// The queries pinned with ``keepSynced(_:_:)`` (those with at least one pin).
    public var pinnedQueries: Set<QuerySpec> { Set(pins.keys) }

    /// How many pins ``keepSynced(_:_:)`` has placed on `query` and not yet removed.
    public func pinCount(for query: QuerySpec) -> Int {
        pins[query]?.count ?? 0
    }
}
