import CanopyTree

/// A data event as it is handed to an observer's callback: a `Sendable` copy of one
/// ``Event`` (client-design.md §5.4).
public struct RaisedEvent: Sendable {
    /// The event type.
    public let type: EventType
    /// The query whose view produced the event.
    public let query: QuerySpec
    /// The snapshot's location: the child's path for child events, the query's for `value`.
    public let path: Path
    /// The snapshot's data: the child for child events, the whole view for `value`.
    public let node: Node
    /// The key preceding the child in the view's order, for added, moved and changed
    /// events (`nil` when the child is first, and for removed and value events).
    public let previousChildKey: ChildKey?

    /// Creates an event.
    public init(type: EventType, query: QuerySpec, path: Path, node: Node, previousChildKey: ChildKey?) {
        self.type = type
        self.query = query
        self.path = path
        self.node = node
        self.previousChildKey = previousChildKey
    }
}
