import CanopyTree

/// The size of a stored tree.
///
/// ``byteSize`` is a logical estimate, the same for every backend holding the same tree (not
/// the size of files on disk): for every leaf and every priority, the length of the
/// location's storage key (its keys' UTF-8 bytes plus one separator byte per key) plus the
/// payload — a string's UTF-8 length, 8 bytes for any other value — plus the payload of its
/// priority, if any. A children node with a priority counts its key and its priority.
public struct TreeStoreStats: Sendable, Equatable {
    /// The number of leaves (values that are not objects).
    public var leafCount: Int
    /// The logical size in bytes; see ``TreeStoreStats``.
    public var byteSize: Int

    /// Creates stats from counts.
    public init(leafCount: Int, byteSize: Int) {
        self.leafCount = leafCount
        self.byteSize = byteSize
    }

    /// The stats of a whole tree.
    public init(tree: Node) {
        var stats = TreeStoreStats(leafCount: 0, byteSize: 0)
        stats.add(tree, keyLength: 0)
        self = stats
    }

    private mutating func add(_ node: Node, keyLength: Int) {
        switch node.content {
        case .leaf(let value):
            leafCount += 1
            byteSize += keyLength + Self.payload(value) + Self.payload(node.priority)
        case .children(let children):
            if let priority = node.priority { byteSize += keyLength + Self.payload(priority) }
            for (key, child) in children.entries {
                add(child, keyLength: keyLength + StoragePathKey.encodedLength(key))
            }
        }
    }

    /// The payload size of a leaf value or priority.
    static func payload(_ value: LeafValue?) -> Int {
        switch value {
        case nil: return 0
        case .string(let s)?: return s.utf8.count
        default: return 8
        }
    }
}
