import CanopyTree

/// Applies operations to a view's caches through the view's filter, producing the new
/// caches and the child changes (client-design.md §3.3).
public struct ViewProcessor: Sendable {
    /// The view's filter.
    public let filter: any NodeFilter

    /// Creates a processor for a filter.
    public init(filter: any NodeFilter) { self.filter = filter }

    /// Applies `operation` to `cache`. `writes` are the pending writes at the view's path;
    /// `completeServerCache` is a complete server cache from an ancestor, if any. The
    /// returned changes include a `value` change when the view's complete data changed.
    public func apply(
        _ operation: Operation, to cache: ViewCache, writes: WriteTreeRef, completeServerCache: Node?
    ) -> (cache: ViewCache, changes: [Change]) {
        var changes = ChangeAccumulator()
        let newCache: ViewCache
        switch operation.kind {
        case .overwrite(let node):
            if operation.source.isFromUser {
                newCache = applyUserOverwrite(
                    cache, path: operation.path, node: node, writes: writes, completeCache: completeServerCache,
                    changes: &changes)
            } else {
                let filterServerNode = operation.source.isTagged
                    || (cache.serverCache.isFiltered && !operation.path.isRoot)
                newCache = applyServerOverwrite(
                    cache, path: operation.path, node: node, writes: writes, completeCache: completeServerCache,
                    filterServerNode: filterServerNode, changes: &changes)
            }
        case .merge(let children):
            if operation.source.isFromUser {
                newCache = applyUserMerge(
                    cache, path: operation.path, children: children, writes: writes,
                    completeCache: completeServerCache, changes: &changes)
            } else {
                let filterServerNode = operation.source.isTagged || cache.serverCache.isFiltered
                newCache = applyServerMerge(
                    cache, path: operation.path, children: children, writes: writes,
                    completeCache: completeServerCache, filterServerNode: filterServerNode, changes: &changes)
            }
        case .ackUserWrite(let affected, let revert):
            if revert {
                newCache = revertUserWrite(
                    cache, path: operation.path, writes: writes, completeCache: completeServerCache,
                    changes: &changes)
            } else {
                newCache = ackUserWrite(
                    cache, path: operation.path, affected: affected, writes: writes,
                    completeCache: completeServerCache, changes: &changes)
            }
        case .listenComplete:
            newCache = listenComplete(cache, path: operation.path, writes: writes, changes: &changes)
        }
        var result = changes.all
        if let value = valueChange(old: cache, new: newCache, childChanges: result) { result.append(value) }
        return (newCache, result)
    }

    /// The `value` change, when the new event cache is complete and something observable
    /// changed (client-design.md §5.2).
    private func valueChange(old: ViewCache, new: ViewCache, childChanges: [Change]) -> Change? {
        let eventCache = new.eventCache
        guard eventCache.isFullyInitialized else { return nil }
        guard let oldComplete = old.completeEventNode else { return .value(eventCache.node) }
        let leafOrEmpty = eventCache.node.isLeaf || eventCache.node.isEmpty
        if !childChanges.isEmpty || (leafOrEmpty && eventCache.node != oldComplete)
            || eventCache.node.priority != oldComplete.priority
        {
            return .value(eventCache.node)
        }
        return nil
    }

    // MARK: - Event cache after server data

    private func eventCacheAfterServerChange(
        _ cache: ViewCache, changePath: Path, writes: WriteTreeRef, source: any CompleteChildSource,
        changes: inout ChangeAccumulator
    ) -> ViewCache {
        let oldEventCache = cache.eventCache
        if writes.shadowingWrite(at: changePath) != nil { return cache }
        let newEventNode: Node
        if let childKey = changePath.front {
            if childKey.isPriority {
                if let priority = writes.calcEventCacheAfterServerOverwrite(
                    childPath: changePath, serverCache: cache.serverCache.node)
                {
                    newEventNode = filter.updatePriority(oldEventCache.node, priority: priority)
                } else {
                    newEventNode = oldEventCache.node
                }
            } else {
                let childChangePath = changePath.popFront
                let newChild: Node?
                if oldEventCache.isComplete(forChild: childKey) {
                    let oldChild = oldEventCache.node.child(childKey)
                    if let update = writes.calcEventCacheAfterServerOverwrite(
                        childPath: changePath, serverCache: cache.serverCache.node)
                    {
                        newChild = oldChild.updating(at: childChangePath, update)
                    } else {
                        newChild = oldChild
                    }
                } else {
                    newChild = writes.calcCompleteChild(childKey, serverCache: cache.serverCache)
                }
                if let newChild {
                    newEventNode = filter.updateChild(
                        oldEventCache.node, key: childKey, newChild: newChild, affectedPath: childChangePath,
                        source: source, changes: &changes)
                } else {
                    newEventNode = oldEventCache.node
                }
            }
        } else {
            if cache.serverCache.isFiltered {
                let serverNode = cache.completeServerNode ?? .empty
                let children = serverNode.isLeaf ? Node.empty : serverNode
                let completeChildren = writes.calcCompleteEventChildren(serverChildren: children)
                newEventNode = filter.updateFullNode(old: oldEventCache.node, new: completeChildren, changes: &changes)
            } else {
                let complete = writes.calcCompleteEventCache(serverCache: cache.completeServerNode) ?? .empty
                newEventNode = filter.updateFullNode(old: oldEventCache.node, new: complete, changes: &changes)
            }
        }
        return cache.updatingEventCache(
            CacheNode(
                node: newEventNode, isFullyInitialized: oldEventCache.isFullyInitialized || changePath.isRoot,
                isFiltered: filter.filtersNodes))
    }

    // MARK: - Server data

    private func applyServerOverwrite(
        _ cache: ViewCache, path: Path, node: Node, writes: WriteTreeRef, completeCache: Node?,
        filterServerNode: Bool, changes: inout ChangeAccumulator
    ) -> ViewCache {
        let oldServer = cache.serverCache
        let serverFilter: any NodeFilter = filterServerNode ? filter : filter.indexedFilter
        var ignored = ChangeAccumulator.discarding
        let newServerNode: Node
        if path.isRoot {
            newServerNode = serverFilter.updateFullNode(old: oldServer.node, new: node, changes: &ignored)
        } else if serverFilter.filtersNodes && !oldServer.isFiltered {
            // The server cache must become filtered: rebuild it whole.
            let updated = oldServer.node.updating(at: path, node)
            newServerNode = serverFilter.updateFullNode(old: oldServer.node, new: updated, changes: &ignored)
        } else {
            guard let childKey = path.front else { return cache }
            if !oldServer.isComplete(at: path) && path.count > 1 {
                // Data for a deeper listener this view does not know the parent of.
                return cache
            }
            let childPath = path.popFront
            let newChild = oldServer.node.child(childKey).updating(at: childPath, node)
            if childKey.isPriority {
                newServerNode = serverFilter.updatePriority(oldServer.node, priority: newChild)
            } else {
                newServerNode = serverFilter.updateChild(
                    oldServer.node, key: childKey, newChild: newChild, affectedPath: childPath,
                    source: NoCompleteChildSource(), changes: &ignored)
            }
        }
        let newCache = cache.updatingServerCache(
            CacheNode(
                node: newServerNode, isFullyInitialized: oldServer.isFullyInitialized || path.isRoot,
                isFiltered: serverFilter.filtersNodes))
        let source = WriteTreeCompleteChildSource(writes: writes, viewCache: newCache, completeServerCache: completeCache)
        return eventCacheAfterServerChange(newCache, changePath: path, writes: writes, source: source, changes: &changes)
    }

    private func applyServerMerge(
        _ cache: ViewCache, path: Path, children: ImmutableTree<Node>, writes: WriteTreeRef, completeCache: Node?,
        filterServerNode: Bool, changes: inout ChangeAccumulator
    ) -> ViewCache {
        // Data for an earlier listen at this location whose full data has not arrived.
        if cache.serverCache.node.isEmpty && !cache.serverCache.isFullyInitialized { return cache }
        var current = cache
        let mergeTree = path.isRoot ? children : ImmutableTree<Node>.empty.replacingSubtree(at: path, with: children)
        let serverNode = cache.serverCache.node
        for (key, childTree) in mergeTree.children where serverNode.hasChild(key) {
            let newChild = ViewProcessor.applyMerge(childTree, to: serverNode.child(key))
            current = applyServerOverwrite(
                current, path: Path(keys: [key]), node: newChild, writes: writes, completeCache: completeCache,
                filterServerNode: filterServerNode, changes: &changes)
        }
        for (key, childTree) in mergeTree.children where !serverNode.hasChild(key) {
            let unknownDeepMerge = !cache.serverCache.isComplete(forChild: key) && childTree.value == nil
            if unknownDeepMerge { continue }
            let newChild = ViewProcessor.applyMerge(childTree, to: serverNode.child(key))
            current = applyServerOverwrite(
                current, path: Path(keys: [key]), node: newChild, writes: writes, completeCache: completeCache,
                filterServerNode: filterServerNode, changes: &changes)
        }
        return current
    }

    private static func applyMerge(_ merge: ImmutableTree<Node>, to node: Node) -> Node {
        var result = node
        merge.forEach { path, child in result = result.updating(at: path, child) }
        return result
    }

    // MARK: - User writes

    private func applyUserOverwrite(
        _ cache: ViewCache, path: Path, node: Node, writes: WriteTreeRef, completeCache: Node?,
        changes: inout ChangeAccumulator
    ) -> ViewCache {
        let oldEventCache = cache.eventCache
        let source = WriteTreeCompleteChildSource(writes: writes, viewCache: cache, completeServerCache: completeCache)
        guard let childKey = path.front else {
            let newNode = filter.updateFullNode(old: oldEventCache.node, new: node, changes: &changes)
            return cache.updatingEventCache(
                CacheNode(node: newNode, isFullyInitialized: true, isFiltered: filter.filtersNodes))
        }
        if childKey.isPriority {
            let newNode = filter.updatePriority(oldEventCache.node, priority: node)
            return cache.updatingEventCache(
                CacheNode(
                    node: newNode, isFullyInitialized: oldEventCache.isFullyInitialized,
                    isFiltered: oldEventCache.isFiltered))
        }
        let childPath = path.popFront
        let oldChild = oldEventCache.node.child(childKey)
        let newChild: Node
        if childPath.isRoot {
            newChild = node
        } else if let complete = source.completeChild(childKey) {
            if childPath.back?.isPriority == true, let parent = childPath.parent, complete.child(at: parent).isEmpty {
                // A priority on a node that does not exist: the server sends it if it does.
                newChild = complete
            } else {
                newChild = complete.updating(at: childPath, node)
            }
        } else {
            newChild = .empty
        }
        guard oldChild != newChild else { return cache }
        let newNode = filter.updateChild(
            oldEventCache.node, key: childKey, newChild: newChild, affectedPath: childPath, source: source,
            changes: &changes)
        return cache.updatingEventCache(
            CacheNode(node: newNode, isFullyInitialized: oldEventCache.isFullyInitialized, isFiltered: filter.filtersNodes))
    }

    private func applyUserMerge(
        _ cache: ViewCache, path: Path, children: ImmutableTree<Node>, writes: WriteTreeRef, completeCache: Node?,
        changes: inout ChangeAccumulator
    ) -> ViewCache {
        // Children already in the view first: removals inside a limit window free room
        // before new children compete for it.
        var entries: [(Path, Node)] = []
        children.forEach { relative, node in entries.append((path.child(relative), node)) }
        var current = cache
        for pass in [true, false] {
            for (writePath, node) in entries {
                let known = writePath.front.map { cache.eventCache.isComplete(forChild: $0) } ?? false
                guard known == pass else { continue }
                current = applyUserOverwrite(
                    current, path: writePath, node: node, writes: writes, completeCache: completeCache,
                    changes: &changes)
            }
        }
        return current
    }

    // MARK: - Acks

    private func ackUserWrite(
        _ cache: ViewCache, path: Path, affected: ImmutableTree<Bool>, writes: WriteTreeRef, completeCache: Node?,
        changes: inout ChangeAccumulator
    ) -> ViewCache {
        if writes.shadowingWrite(at: path) != nil { return cache }
        let filterServerNode = cache.serverCache.isFiltered
        let serverCache = cache.serverCache
        if affected.value != nil {
            if (path.isRoot && serverCache.isFullyInitialized) || serverCache.isComplete(at: path) {
                return applyServerOverwrite(
                    cache, path: path, node: serverCache.node.child(at: path), writes: writes,
                    completeCache: completeCache, filterServerNode: filterServerNode, changes: &changes)
            }
            if path.isRoot {
                // Acking at a location without full data: re-apply what is known as a merge.
                var known = ImmutableTree<Node>.empty
                for (key, child) in serverCache.node.children.entries { known = known.setting(Path(keys: [key]), child) }
                return applyServerMerge(
                    cache, path: path, children: known, writes: writes, completeCache: completeCache,
                    filterServerNode: filterServerNode, changes: &changes)
            }
            return cache
        }
        var known = ImmutableTree<Node>.empty
        affected.forEach { mergePath, _ in
            let serverPath = path.child(mergePath)
            if serverCache.isComplete(at: serverPath) {
                known = known.setting(mergePath, serverCache.node.child(at: serverPath))
            }
        }
        return applyServerMerge(
            cache, path: path, children: known, writes: writes, completeCache: completeCache,
            filterServerNode: filterServerNode, changes: &changes)
    }

    private func revertUserWrite(
        _ cache: ViewCache, path: Path, writes: WriteTreeRef, completeCache: Node?, changes: inout ChangeAccumulator
    ) -> ViewCache {
        if writes.shadowingWrite(at: path) != nil { return cache }
        let source = WriteTreeCompleteChildSource(writes: writes, viewCache: cache, completeServerCache: completeCache)
        let oldEventNode = cache.eventCache.node
        var newEventNode: Node
        if path.isRoot || path.front?.isPriority == true {
            let newNode: Node
            if let server = cache.completeServerNode {
                newNode = writes.calcCompleteEventCache(serverCache: server) ?? .empty
            } else {
                newNode = writes.calcCompleteEventChildren(serverChildren: cache.serverCache.node)
            }
            newEventNode = filter.updateFullNode(old: oldEventNode, new: newNode, changes: &changes)
        } else {
            guard let childKey = path.front else { return cache }
            var newChild = writes.calcCompleteChild(childKey, serverCache: cache.serverCache)
            if newChild == nil && cache.serverCache.isComplete(forChild: childKey) {
                newChild = oldEventNode.child(childKey)
            }
            if let newChild {
                newEventNode = filter.updateChild(
                    oldEventNode, key: childKey, newChild: newChild, affectedPath: path.popFront, source: source,
                    changes: &changes)
            } else if cache.eventCache.node.hasChild(childKey) {
                newEventNode = filter.updateChild(
                    oldEventNode, key: childKey, newChild: .empty, affectedPath: path.popFront, source: source,
                    changes: &changes)
            } else {
                newEventNode = oldEventNode
            }
            if newEventNode.isEmpty, let server = cache.completeServerNode,
                let complete = writes.calcCompleteEventCache(serverCache: server), complete.isLeaf
            {
                // Every child write was reverted; the true value may be a leaf.
                newEventNode = filter.updateFullNode(old: newEventNode, new: complete, changes: &changes)
            }
        }
        let complete = cache.serverCache.isFullyInitialized || writes.shadowingWrite(at: .root) != nil
        return cache.updatingEventCache(
            CacheNode(node: newEventNode, isFullyInitialized: complete, isFiltered: filter.filtersNodes))
    }

    // MARK: - Listen complete

    private func listenComplete(
        _ cache: ViewCache, path: Path, writes: WriteTreeRef, changes: inout ChangeAccumulator
    ) -> ViewCache {
        let oldServer = cache.serverCache
        let newCache = cache.updatingServerCache(
            CacheNode(
                node: oldServer.node, isFullyInitialized: oldServer.isFullyInitialized || path.isRoot,
                isFiltered: oldServer.isFiltered))
        return eventCacheAfterServerChange(
            newCache, changePath: path, writes: writes, source: NoCompleteChildSource(), changes: &changes)
    }
}
