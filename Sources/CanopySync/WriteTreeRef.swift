import CanopyTree

/// A ``WriteTree`` seen from one location: what a view at that location asks of the
/// pending writes.
public struct WriteTreeRef: Sendable {
    /// The whole write tree.
    public let writeTree: WriteTree
    /// The location this reference looks from.
    public let path: Path

    /// Creates a reference.
    public init(writeTree: WriteTree, path: Path) {
        self.writeTree = writeTree
        self.path = path
    }

    /// The same write tree seen from the child `key`.
    public func child(_ key: ChildKey) -> WriteTreeRef { WriteTreeRef(writeTree: writeTree, path: path.child(key)) }

    /// The node a visible write fully defines at `relativePath`, or `nil`.
    public func shadowingWrite(at relativePath: Path) -> Node? {
        writeTree.shadowingWrite(at: path.child(relativePath))
    }

    /// Writes layered over a complete server cache; see
    /// ``WriteTree/calcCompleteEventCache(at:serverCache:excluding:includingHidden:)``.
    public func calcCompleteEventCache(
        serverCache: Node?, excluding: Set<Int> = [], includingHidden: Bool = false
    ) -> Node? {
        writeTree.calcCompleteEventCache(
            at: path, serverCache: serverCache, excluding: excluding, includingHidden: includingHidden)
    }

    /// Every child made complete by writes and/or the server's children.
    public func calcCompleteEventChildren(serverChildren: Node?) -> Node {
        writeTree.calcCompleteEventChildren(at: path, serverChildren: serverChildren)
    }

    /// The event-cache update after server data changed at `childPath`, or `nil` when a
    /// write covers it.
    public func calcEventCacheAfterServerOverwrite(childPath: Path, serverCache: Node) -> Node? {
        writeTree.calcEventCacheAfterServerOverwrite(at: path, childPath: childPath, serverCache: serverCache)
    }

    /// One complete child from writes and the server cache, or `nil`.
    public func calcCompleteChild(_ key: ChildKey, serverCache: CacheNode) -> Node? {
        writeTree.calcCompleteChild(at: path, key: key, serverCache: serverCache)
    }

    /// Up to `count` children after (or before, when `reverse`) `post` in index order.
    public func calcIndexedSlice(
        completeServerData: Node?, after post: NamedNode, count: Int, reverse: Bool, index: Index
    ) -> [NamedNode] {
        writeTree.calcIndexedSlice(
            at: path, completeServerData: completeServerData, after: post, count: count, reverse: reverse,
            index: index)
    }
}
