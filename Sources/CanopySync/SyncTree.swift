import CanopyTree

/// The client engine's tree of sync points: it applies user writes and server data to
/// every affected view, returns the resulting events in order, allocates query tags and
/// keeps the minimal set of listens (client-design.md §2.3, §6.5, §6.7).
///
/// A sync tree is owned by one engine actor and is not `Sendable`.
public final class SyncTree {
    /// The sync points by path.
    public private(set) var syncPoints: ImmutableTree<SyncPoint> = .empty
    /// The pending user writes.
    public private(set) var writeTree = WriteTree()
    private var queryKeyToTag: [String: Int] = [:]
    private var tagToQuery: [Int: QuerySpec] = [:]
    private var nextTag = 1
    private let listenProvider: any ListenProvider

    /// Creates an empty sync tree that asks `listenProvider` to start and stop listens.
    public init(listenProvider: any ListenProvider) {
        self.listenProvider = listenProvider
    }

    // MARK: - User writes

    /// Records a `set` and, when visible, applies it locally.
    public func applyUserOverwrite(path: Path, node: Node, writeId: Int, isVisible: Bool = true) -> [Event] {
        writeTree.addOverwrite(path: path, node: node, writeId: writeId, isVisible: isVisible)
        guard isVisible else { return [] }
        return apply(Operation(source: .user, path: path, kind: .overwrite(node)))
    }

    /// Records an `update` of nodes at relative paths below `path` and applies it locally.
    public func applyUserMerge(path: Path, children: [(path: Path, node: Node)], writeId: Int) -> [Event] {
        writeTree.addMerge(path: path, children: children, writeId: writeId)
        return apply(Operation(source: .user, path: path, kind: .merge(SyncTree.mergeTree(children))))
    }

    /// Removes a pending write, confirmed or (with `revert`) rolled back, and re-evaluates
    /// the views it may have affected.
    public func ackUserWrite(writeId: Int, revert: Bool = false) -> [Event] {
        guard let write = writeTree.write(withId: writeId) else { return [] }
        guard writeTree.removeWrite(withId: writeId) else { return [] }
        var affected = ImmutableTree<Bool>.empty
        switch write.payload {
        case .overwrite: affected = affected.setting(.root, true)
        case .merge(let children):
            for child in children { affected = affected.setting(child.path, true) }
        }
        return apply(Operation(source: .user, path: write.path, kind: .ackUserWrite(affected: affected, revert: revert)))
    }

    /// Drops every pending write, reverting each locally (purge).
    public func removeAllWrites() -> [Event] {
        var events: [Event] = []
        for write in writeTree.allWrites { events += ackUserWrite(writeId: write.writeId, revert: true) }
        return events
    }

    // MARK: - Server data

    /// Applies untagged server data replacing the data at `path`.
    public func applyServerOverwrite(path: Path, node: Node) -> [Event] {
        apply(Operation(source: .server, path: path, kind: .overwrite(node)))
    }

    /// Applies untagged server data replacing each relative path below `path`.
    public func applyServerMerge(path: Path, children: [(path: Path, node: Node)]) -> [Event] {
        apply(Operation(source: .server, path: path, kind: .merge(SyncTree.mergeTree(children))))
    }

    /// Marks the default listen at `path` complete.
    public func applyListenComplete(path: Path) -> [Event] {
        apply(Operation(source: .server, path: path, kind: .listenComplete))
    }

    /// Applies server data for the query tagged `tag` (ignored when the tag is unknown).
    public func applyTaggedQueryOverwrite(path: Path, node: Node, tag: Int) -> [Event] {
        applyTagged(path: path, tag: tag, kind: .overwrite(node))
    }

    /// Applies a server merge for the query tagged `tag` (ignored when the tag is unknown).
    public func applyTaggedQueryMerge(path: Path, children: [(path: Path, node: Node)], tag: Int) -> [Event] {
        applyTagged(path: path, tag: tag, kind: .merge(SyncTree.mergeTree(children)))
    }

    /// Marks the listen of the query tagged `tag` complete.
    public func applyTaggedListenComplete(path: Path, tag: Int) -> [Event] {
        applyTagged(path: path, tag: tag, kind: .listenComplete)
    }

    private func applyTagged(path: Path, tag: Int, kind: Operation.Kind) -> [Event] {
        guard let query = tagToQuery[tag], let relative = path.relative(to: query.path),
            let syncPoint = syncPoints.value(at: query.path)
        else { return [] }
        let operation = Operation(source: .taggedQuery(query.params.identifier), path: relative, kind: kind)
        return syncPoint.apply(operation, writes: writeTree.ref(at: query.path), completeServerCache: nil)
    }

    // MARK: - Registrations

    /// Adds a registration for `query`: creates the sync point and view as needed, returns
    /// the registration's initial events and starts a listen unless one already covers it.
    public func addEventRegistration(_ registration: any EventRegistration, for query: QuerySpec) -> [Event] {
        let path = query.path
        var serverCache: Node?
        var foundCompleteView = false
        var tree = syncPoints
        var depth = 0
        while true {
            if let syncPoint = tree.value {
                let relative = Path(keys: Array(path.keys.dropFirst(depth)))
                if serverCache == nil { serverCache = syncPoint.completeServerCache(at: relative) }
                foundCompleteView = foundCompleteView || syncPoint.hasCompleteView
            }
            guard depth < path.count, let next = tree.child(path.keys[depth]) else { break }
            tree = next
            depth += 1
        }
        let syncPoint: SyncPoint
        if let existing = syncPoints.value(at: path) {
            syncPoint = existing
        } else {
            syncPoint = SyncPoint()
            syncPoints = syncPoints.setting(path, syncPoint)
        }
        let serverCacheComplete = serverCache != nil
        if serverCache == nil {
            var assembled = Node.empty
            for (key, child) in syncPoints.subtree(at: path).children {
                if let complete = child.value?.completeServerCache(at: .root) {
                    assembled = assembled.updatingChild(key, complete)
                }
            }
            serverCache = assembled
        }
        let viewExists = syncPoint.view(for: query) != nil
        if !viewExists && !query.params.loadsAllData {
            let tag = nextTag
            nextTag += 1
            queryKeyToTag[query.treeKey] = tag
            tagToQuery[tag] = query
        }
        var events = syncPoint.addRegistration(
            registration, for: query, writes: writeTree.ref(at: path), serverCache: serverCache ?? .empty,
            serverCacheComplete: serverCacheComplete)
        if !viewExists && !foundCompleteView, let view = syncPoint.view(for: query) {
            events += setUpListen(for: query, view: view)
        }
        return events
    }

    /// Removes `registration` (or every registration, when `nil`) from `query` — from every
    /// view at the path for the default query — and re-arranges listens. With a
    /// `cancelReason` (the listen failed), registrations get cancel events and no stop is
    /// sent.
    public func removeEventRegistration(
        _ registration: (any EventRegistration)?, for query: QuerySpec, cancelReason: String? = nil
    ) -> [Event] {
        let path = query.path
        guard let syncPoint = syncPoints.value(at: path),
            query.params.isDefault || syncPoint.view(for: query) != nil
        else { return [] }
        let (removed, events) = syncPoint.removeRegistration(registration, for: query, cancelReason: cancelReason)
        if syncPoint.isEmpty { syncPoints = syncPoints.removingValue(at: path) }
        let removingDefault = removed.contains { $0.params.loadsAllData }
        let covered = syncPoints.rootmostValue(on: path) { $0.hasCompleteView } != nil
        if removingDefault && !covered {
            let subtree = syncPoints.subtree(at: path)
            if !subtree.isEmpty {
                for view in SyncTree.viewsNeedingListens(in: subtree) {
                    startListen(for: view.query, view: view)
                }
            }
        }
        if !covered && !removed.isEmpty && cancelReason == nil {
            if removingDefault {
                listenProvider.stopListening(query.forListening, tag: nil)
            } else {
                for query in removed {
                    listenProvider.stopListening(query.forListening, tag: queryKeyToTag[query.treeKey])
                }
            }
        }
        for query in removed where !query.params.loadsAllData {
            if let tag = queryKeyToTag.removeValue(forKey: query.treeKey) { tagToQuery[tag] = nil }
        }
        return events
    }

    /// The tag allocated to a filtering query, if its view exists.
    public func tag(for query: QuerySpec) -> Int? { queryKeyToTag[query.treeKey] }

    /// The best local value at `path`: writes (hidden ones included unless
    /// `includingHidden` is `false`) over the complete server data known on the way, leaving
    /// out `excluding`. With hidden writes included the result is never `nil`.
    public func calcCompleteEventCache(at path: Path, excluding: Set<Int> = [], includingHidden: Bool = true) -> Node? {
        var serverCache: Node?
        var tree = syncPoints
        var depth = 0
        while serverCache == nil {
            if let syncPoint = tree.value {
                serverCache = syncPoint.completeServerCache(at: Path(keys: Array(path.keys.dropFirst(depth))))
            }
            guard depth < path.count, let next = tree.child(path.keys[depth]) else { break }
            tree = next
            depth += 1
        }
        return writeTree.calcCompleteEventCache(
            at: path, serverCache: serverCache, excluding: excluding, includingHidden: includingHidden)
    }

    // MARK: - Listens

    private func setUpListen(for query: QuerySpec, view: View) -> [Event] {
        let tag = queryKeyToTag[query.treeKey]
        let events = startListen(for: query, view: view)
        if tag == nil {
            // A default listen shadows every listen at or below its location.
            let subtree = syncPoints.subtree(at: query.path)
            let toStop: [QuerySpec] = subtree.fold { relative, syncPoint, children in
                if !relative.isRoot, let complete = syncPoint?.completeView { return [complete.query] }
                var queries = syncPoint?.queryViews.map(\.query) ?? []
                for (_, childQueries) in children { queries += childQueries }
                return queries
            }
            for stopped in toStop {
                listenProvider.stopListening(stopped.forListening, tag: queryKeyToTag[stopped.treeKey])
            }
        }
        return events
    }

    @discardableResult
    private func startListen(for query: QuerySpec, view: View) -> [Event] {
        let tag = queryKeyToTag[query.treeKey]
        return listenProvider.startListening(
            query.forListening, tag: tag, hash: { [weak view] in view?.serverCacheNode.hash ?? "" },
            onComplete: { [weak self] status in
                guard let self else { return [] }
                switch status {
                case .ok:
                    if let tag { return self.applyTaggedListenComplete(path: query.path, tag: tag) }
                    return self.applyListenComplete(path: query.path)
                case .failed(let reason):
                    return self.removeEventRegistration(nil, for: query, cancelReason: reason)
                }
            })
    }

    /// For a subtree losing its covering default listen: per branch, the topmost complete
    /// view, plus the filtering views above it.
    private static func viewsNeedingListens(in subtree: ImmutableTree<SyncPoint>) -> [View] {
        subtree.fold { _, syncPoint, children in
            if let complete = syncPoint?.completeView { return [complete] }
            var views = syncPoint?.queryViews ?? []
            for (_, childViews) in children { views += childViews }
            return views
        }
    }

    // MARK: - Applying operations

    private func apply(_ operation: Operation) -> [Event] {
        applyAlongPath(operation, tree: syncPoints, serverCache: nil, writes: writeTree.ref(at: .root))
    }

    private func applyAlongPath(
        _ operation: Operation, tree: ImmutableTree<SyncPoint>, serverCache: Node?, writes: WriteTreeRef
    ) -> [Event] {
        guard let childKey = operation.path.front else {
            return applyBelow(operation, tree: tree, serverCache: serverCache, writes: writes)
        }
        let syncPoint = tree.value
        let serverCache = serverCache ?? syncPoint?.completeServerCache(at: .root)
        var events: [Event] = []
        if let childTree = tree.child(childKey), let childOperation = operation.forChild(childKey) {
            events += applyAlongPath(
                childOperation, tree: childTree, serverCache: serverCache?.child(childKey),
                writes: writes.child(childKey))
        }
        if let syncPoint {
            events += syncPoint.apply(operation, writes: writes, completeServerCache: serverCache)
        }
        return events
    }

    private func applyBelow(
        _ operation: Operation, tree: ImmutableTree<SyncPoint>, serverCache: Node?, writes: WriteTreeRef
    ) -> [Event] {
        let syncPoint = tree.value
        let serverCache = serverCache ?? syncPoint?.completeServerCache(at: .root)
        var events: [Event] = []
        for (key, childTree) in tree.children {
            if let childOperation = operation.forChild(key) {
                events += applyBelow(
                    childOperation, tree: childTree, serverCache: serverCache?.child(key), writes: writes.child(key))
            }
        }
        if let syncPoint {
            events += syncPoint.apply(operation, writes: writes, completeServerCache: serverCache)
        }
        return events
    }

    private static func mergeTree(_ children: [(path: Path, node: Node)]) -> ImmutableTree<Node> {
        var tree = ImmutableTree<Node>.empty
        for child in children { tree = tree.setting(child.path, child.node) }
        return tree
    }
}
