import CanopySync

/// The kinds of event an observer can listen to, with FirebaseDatabase's raw values.
public enum DataEventType: Int, Sendable, Hashable, CaseIterable {
    /// A child entered the query's results; the observer gets the child and the key of the
    /// child before it.
    case childAdded = 0
    /// A child left the query's results; the observer gets the removed child.
    case childRemoved = 1
    /// A child's data changed; the observer gets the new child and the key before it.
    case childChanged = 2
    /// A child moved in the query's order; the observer gets the child and its new previous
    /// sibling's key.
    case childMoved = 3
    /// The query's data, as a whole, once it is known and after every change.
    case value = 4
}

extension DataEventType {
    /// The engine's name for this event type.
    var engineType: EventType {
        switch self {
        case .childAdded: return .childAdded
        case .childRemoved: return .childRemoved
        case .childChanged: return .childChanged
        case .childMoved: return .childMoved
        case .value: return .value
        }
    }
}
