/// The kinds of event a registration can receive.
public enum EventType: Sendable, Hashable, CaseIterable {
    /// A child was removed from the view.
    case childRemoved
    /// A child entered the view.
    case childAdded
    /// A child changed position in the view's order.
    case childMoved
    /// A child's data changed.
    case childChanged
    /// The whole view's data (only for complete data).
    case value

    /// The spelling used by the reference clients and the conformance spec
    /// (`child_added`, …, `value`).
    public var name: String {
        switch self {
        case .childRemoved: return "child_removed"
        case .childAdded: return "child_added"
        case .childMoved: return "child_moved"
        case .childChanged: return "child_changed"
        case .value: return "value"
        }
    }
}
