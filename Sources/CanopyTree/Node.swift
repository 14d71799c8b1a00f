/// An immutable node of the JSON tree: empty (`null`), a leaf, or children — with an optional
/// priority.
///
/// Empty is the children node with no children; it never carries a priority. Removing the
/// last child of a node drops the node's priority with it. Writing a non-empty child into a
/// leaf turns it into a children node that keeps the leaf's priority.
public struct Node: Sendable {
    /// What a node holds.
    public enum Content: Sendable {
        /// A string, number, boolean or server-value placeholder.
        case leaf(LeafValue)
        /// Children in key order; empty for `null`.
        case children(ChildMap)
    }

    /// The node's content.
    public let content: Content
    /// The node's priority: a string or number (or a timestamp placeholder), `nil` for none.
    public let priority: LeafValue?

    /// The empty node (`null`).
    public static let empty = Node(content: .children(.empty), priority: nil)

    init(content: Content, priority: LeafValue?) {
        self.content = content
        if case .children(let map) = content, map.isEmpty {
            self.priority = nil
        } else {
            self.priority = priority
        }
    }

    /// A leaf node.
    public init(leaf value: LeafValue, priority: LeafValue? = nil) {
        self.init(content: .leaf(value), priority: priority)
    }

    /// A children node (empty when `children` is empty, dropping the priority).
    public init(children: ChildMap, priority: LeafValue? = nil) {
        self.init(content: .children(children), priority: priority)
    }

    /// Whether this is the empty node.
    public var isEmpty: Bool {
        if case .children(let map) = content { return map.isEmpty }
        return false
    }

    /// Whether this is a leaf.
    public var isLeaf: Bool {
        if case .leaf = content { return true }
        return false
    }

    /// The leaf value, for leaves.
    public var leafValue: LeafValue? {
        if case .leaf(let v) = content { return v }
        return nil
    }

    /// The children, in key order (empty for leaves and for the empty node).
    public var children: ChildMap {
        if case .children(let map) = content { return map }
        return .empty
    }

    /// The number of children (0 for leaves).
    public var childCount: Int { children.count }

    /// The priority as a node (a leaf, or empty when there is none).
    public var priorityNode: Node {
        priority.map { Node(leaf: $0) } ?? .empty
    }

    /// The child named `key` (empty when absent); `.priority` gives the priority node.
    public func child(_ key: ChildKey) -> Node {
        if key.isPriority { return priorityNode }
        return children[key] ?? .empty
    }

    /// The node at `path` below this one (empty when absent).
    public func child(at path: Path) -> Node {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isEmpty { return .empty }
        }
        return node
    }

    /// Whether a non-empty child named `key` exists.
    public func hasChild(_ key: ChildKey) -> Bool { children[key] != nil }

    /// A copy with the child `key` replaced by `node` (removed when `node` is empty).
    /// `.priority` sets the priority from a leaf `node`.
    public func updatingChild(_ key: ChildKey, _ node: Node) -> Node {
        if key.isPriority { return withPriority(node.leafValue) }
        switch content {
        case .leaf:
            if node.isEmpty { return self }
            return Node(children: ChildMap.empty.setting(key, node), priority: priority)
        case .children(let map):
            return Node(children: map.setting(key, node), priority: priority)
        }
    }

    /// A copy with the node at `path` replaced by `node`; the root path replaces `self`.
    public func updating(at path: Path, _ node: Node) -> Node {
        guard let front = path.front else { return node }
        if front.isPriority && path.count == 1 { return withPriority(node.leafValue) }
        return updatingChild(front, child(front).updating(at: path.popFront, node))
    }

    /// A copy with a new priority (ignored for the empty node).
    public func withPriority(_ priority: LeafValue?) -> Node {
        Node(content: content, priority: priority)
    }
}

extension Node: Equatable {
    /// Structural equality, priorities included; numbers by value, strings by code units.
    public static func == (lhs: Node, rhs: Node) -> Bool {
        guard lhs.priority == rhs.priority else { return false }
        switch (lhs.content, rhs.content) {
        case (.leaf(let a), .leaf(let b)): return a == b
        case (.children(let a), .children(let b)):
            return a.entriesEqual(b)
        default: return false
        }
    }
}
