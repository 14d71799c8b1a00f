import CanopyTree

/// One event for one registration, in the order the engine raises them (client-design.md
/// §5.4).
public struct Event {
    /// What happened.
    public enum Kind: Sendable {
        /// A data event of the given type.
        case data(EventType)
        /// The listen failed; the registration has been removed.
        case cancel(reason: String)
    }

    /// What happened.
    public let kind: Kind
    /// The query whose view produced the event.
    public let query: QuerySpec
    /// The child for child events, the whole view for `value`; empty for cancel events.
    public let node: Node
    /// The child's key, for child events.
    public let childKey: ChildKey?
    /// The key preceding the child in the view's order after the change, for added, moved
    /// and changed events (`nil` when it is first).
    public let previousChildKey: ChildKey?
    /// The registration that receives the event.
    public let registration: any EventRegistration

    /// Creates an event.
    public init(
        kind: Kind, query: QuerySpec, node: Node, childKey: ChildKey?, previousChildKey: ChildKey?,
        registration: any EventRegistration
    ) {
        self.kind = kind
        self.query = query
        self.node = node
        self.childKey = childKey
        self.previousChildKey = previousChildKey
        self.registration = registration
    }

    /// The data event type, or `nil` for a cancel event.
    public var type: EventType? {
        if case .data(let type) = kind { return type }
        return nil
    }

    /// The location of the snapshot: the child's path for child events, else the query's.
    public var path: Path { childKey.map { query.path.child($0) } ?? query.path }
}
