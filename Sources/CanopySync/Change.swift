import CanopyTree

/// One change a view operation produced, before it is turned into events
/// (client-design.md §5).
public struct Change: Sendable {
    /// The kind of change.
    public let type: EventType
    /// The new node (the removed node for removals, the whole view for `value`).
    public let node: Node
    /// The child's key, for child changes.
    public let childKey: ChildKey?
    /// The node before the change, for `childChanged`.
    public let oldNode: Node?

    /// Creates a change.
    public init(type: EventType, node: Node, childKey: ChildKey? = nil, oldNode: Node? = nil) {
        self.type = type
        self.node = node
        self.childKey = childKey
        self.oldNode = oldNode
    }

    /// A child entered the view.
    public static func childAdded(_ key: ChildKey, _ node: Node) -> Change {
        Change(type: .childAdded, node: node, childKey: key)
    }

    /// A child left the view.
    public static func childRemoved(_ key: ChildKey, _ node: Node) -> Change {
        Change(type: .childRemoved, node: node, childKey: key)
    }

    /// A child's data changed.
    public static func childChanged(_ key: ChildKey, _ node: Node, old: Node) -> Change {
        Change(type: .childChanged, node: node, childKey: key, oldNode: old)
    }

    /// A child moved in the view's order.
    public static func childMoved(_ key: ChildKey, _ node: Node) -> Change {
        Change(type: .childMoved, node: node, childKey: key)
    }

    /// The view's complete data.
    public static func value(_ node: Node) -> Change {
        Change(type: .value, node: node)
    }
}
