import CanopyTree

/// The pending user writes of a sync tree, layered so views can see local data before the
/// server confirms it (client-design.md §4.1).
///
/// Writes are kept in id order. The visible ones are also layered into one
/// ``CanopyTree/CompoundWrite``; invisible ones (transaction runs with local events off) only count
/// when a caller asks for hidden writes too.
public struct WriteTree: Sendable {
    /// Every pending write in id order.
    public private(set) var allWrites: [WriteRecord] = []
    /// All visible writes layered into one compound write.
    public private(set) var visibleWrites: CompoundWrite = .empty
    private var lastWriteId = Int.min

    /// An empty write tree.
    public init() {}

    /// Records a `set`. Write ids must strictly increase.
    public mutating func addOverwrite(path: Path, node: Node, writeId: Int, isVisible: Bool) {
        precondition(writeId > lastWriteId, "write ids must increase")
        allWrites.append(WriteRecord(writeId: writeId, path: path, payload: .overwrite(node), isVisible: isVisible))
        if isVisible { visibleWrites = visibleWrites.adding(node, at: path) }
        lastWriteId = writeId
    }

    /// Records an `update` of nodes at relative paths below `path`. Write ids must strictly
    /// increase.
    public mutating func addMerge(path: Path, children: [(path: Path, node: Node)], writeId: Int) {
        precondition(writeId > lastWriteId, "write ids must increase")
        let record = WriteRecord(writeId: writeId, path: path, payload: .merge(children), isVisible: true)
        allWrites.append(record)
        visibleWrites = visibleWrites.adding(record.mergeWrite, at: path)
        lastWriteId = writeId
    }

    /// The pending write with this id.
    public func write(withId writeId: Int) -> WriteRecord? {
        allWrites.first { $0.writeId == writeId }
    }

    /// Removes a write (acknowledged or reverted); writes may leave out of order. Returns
    /// whether views might need re-evaluating: `false` when the write was invisible or a
    /// later visible write covers it entirely.
    public mutating func removeWrite(withId writeId: Int) -> Bool {
        guard let index = allWrites.firstIndex(where: { $0.writeId == writeId }) else { return false }
        let removed = allWrites.remove(at: index)
        guard removed.isVisible else { return false }
        var overlaps = false
        for (i, other) in allWrites.enumerated().reversed() where other.isVisible {
            if i >= index && other.covers(removed.path) { return false }
            let touched = other.touchedPaths
            if removed.touchedPaths.contains(where: { mine in
                touched.contains { mine.contains($0) || $0.contains(mine) }
            }) {
                overlaps = true
            }
        }
        if overlaps {
            visibleWrites = WriteTree.layer(allWrites, at: .root) { $0.isVisible }
        } else {
            for path in removed.touchedPaths { visibleWrites = visibleWrites.removing(at: path) }
        }
        return true
    }

    /// The node a visible write fully defines at `path`, or `nil`.
    public func shadowingWrite(at path: Path) -> Node? { visibleWrites.completeNode(at: path) }

    /// The best local value at `treePath`: writes layered over `serverCache` (a complete
    /// server value there, if known). `nil` when neither gives a complete value.
    /// `excluding` leaves out some write ids; `includingHidden` counts invisible writes.
    public func calcCompleteEventCache(
        at treePath: Path, serverCache: Node?, excluding: Set<Int> = [], includingHidden: Bool = false
    ) -> Node? {
        if excluding.isEmpty && !includingHidden {
            if let shadowing = visibleWrites.completeNode(at: treePath) { return shadowing }
            let merge = visibleWrites.childCompoundWrite(at: treePath)
            if merge.isEmpty { return serverCache }
            if serverCache == nil && !merge.hasCompleteWrite(at: .root) { return nil }
            return merge.apply(to: serverCache ?? .empty)
        }
        let merge = visibleWrites.childCompoundWrite(at: treePath)
        if !includingHidden && merge.isEmpty { return serverCache }
        if !includingHidden && serverCache == nil && !merge.hasCompleteWrite(at: .root) { return nil }
        let layered = WriteTree.layer(allWrites, at: treePath) { write in
            (write.isVisible || includingHidden) && !excluding.contains(write.writeId)
                && (write.path.contains(treePath) || treePath.contains(write.path))
        }
        return layered.apply(to: serverCache ?? .empty)
    }

    /// Every child at `treePath` made complete by writes and/or `serverChildren` (the
    /// server cache's children there), as one children node.
    public func calcCompleteEventChildren(at treePath: Path, serverChildren: Node?) -> Node {
        var result = Node.empty
        if let topLevel = visibleWrites.completeNode(at: treePath) {
            for (key, child) in topLevel.children.entries { result = result.updatingChild(key, child) }
            return result
        }
        let merge = visibleWrites.childCompoundWrite(at: treePath)
        if let serverChildren {
            for (key, child) in serverChildren.children.entries {
                result = result.updatingChild(key, merge.childCompoundWrite(at: Path(keys: [key])).apply(to: child))
            }
        }
        for named in merge.completeChildren() { result = result.updatingChild(named.key, named.node) }
        return result
    }

    /// What the event cache at `treePath` should hold at `childPath` after server data
    /// changed there: `nil` when a write covers it, else the server value with partial
    /// writes applied.
    public func calcEventCacheAfterServerOverwrite(at treePath: Path, childPath: Path, serverCache: Node) -> Node? {
        let path = treePath.child(childPath)
        if visibleWrites.hasCompleteWrite(at: path) { return nil }
        let childMerge = visibleWrites.childCompoundWrite(at: path)
        let server = serverCache.child(at: childPath)
        return childMerge.isEmpty ? server : childMerge.apply(to: server)
    }

    /// One complete child `key` at `treePath` from writes and the server cache, or `nil`.
    public func calcCompleteChild(at treePath: Path, key: ChildKey, serverCache: CacheNode) -> Node? {
        let path = treePath.child(key)
        if let shadowing = visibleWrites.completeNode(at: path) { return shadowing }
        guard serverCache.isComplete(forChild: key) else { return nil }
        return visibleWrites.childCompoundWrite(at: path).apply(to: serverCache.node.child(key))
    }

    /// Up to `count` children at `treePath` following `post` in `index` order (preceding it
    /// when `reverse`), with writes layered over `completeServerData`; empty when nothing
    /// complete is known. Used to refill limit windows.
    public func calcIndexedSlice(
        at treePath: Path, completeServerData: Node?, after post: NamedNode, count: Int, reverse: Bool,
        index: Index
    ) -> [NamedNode] {
        let merge = visibleWrites.childCompoundWrite(at: treePath)
        let node: Node
        if let shadowing = merge.completeNode(at: .root) {
            node = shadowing
        } else if let completeServerData {
            node = merge.apply(to: completeServerData)
        } else {
            return []
        }
        let sorted = index.sortedChildren(of: node)
        var result: [NamedNode] = []
        if reverse {
            for child in sorted.reversed() where result.count < count && index.compare(child, post) < 0 {
                result.append(child)
            }
        } else {
            for child in sorted where result.count < count && index.compare(child, post) > 0 {
                result.append(child)
            }
        }
        return result
    }

    /// The writes that pass `include`, layered into one compound write re-rooted at
    /// `treeRoot`.
    static func layer(_ writes: [WriteRecord], at treeRoot: Path, include: (WriteRecord) -> Bool) -> CompoundWrite {
        var result = CompoundWrite.empty
        for write in writes where include(write) {
            let entries: [(Path, Node)]
            switch write.payload {
            case .overwrite(let node): entries = [(write.path, node)]
            case .merge(let children): entries = children.map { (write.path.child($0.path), $0.node) }
            }
            for (path, node) in entries {
                if let relative = path.relative(to: treeRoot) {
                    result = result.adding(node, at: relative)
                } else if let relative = treeRoot.relative(to: path) {
                    result = result.adding(node.child(at: relative), at: .root)
                }
            }
        }
        return result
    }

    /// A view of this write tree from `path`.
    public func ref(at path: Path) -> WriteTreeRef { WriteTreeRef(writeTree: self, path: path) }
}
