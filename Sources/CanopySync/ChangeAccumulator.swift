import CanopyTree

/// Collects the child changes of one view operation, folding repeated changes to the same
/// key (client-design.md §5.1).
public struct ChangeAccumulator: Sendable {
    private var changes: [ChildKey: Change] = [:]
    private var order: [ChildKey] = []
    private let isTracking: Bool

    /// An empty accumulator.
    public init() { isTracking = true }

    private init(isTracking: Bool) { self.isTracking = isTracking }

    /// An accumulator that drops every change, for updates nobody raises events for (the
    /// server cache).
    public static var discarding: ChangeAccumulator { ChangeAccumulator(isTracking: false) }

    /// Records a child change, folding it with an earlier change to the same key:
    /// removed+added → changed, added+removed → nothing, changed+removed → removed (old
    /// node kept), added+changed → added, changed+changed → changed (first old node kept).
    /// Any other sequence cannot come from a filter; the later change then wins.
    public mutating func track(_ change: Change) {
        guard isTracking, let key = change.childKey else { return }
        guard let earlier = changes[key] else {
            changes[key] = change
            order.append(key)
            return
        }
        switch (earlier.type, change.type) {
        case (.childRemoved, .childAdded):
            changes[key] = .childChanged(key, change.node, old: earlier.node)
        case (.childAdded, .childRemoved):
            changes[key] = nil
            order.removeAll { $0 == key }
        case (.childChanged, .childRemoved):
            changes[key] = .childRemoved(key, earlier.oldNode ?? earlier.node)
        case (.childAdded, .childChanged):
            changes[key] = .childAdded(key, change.node)
        case (.childChanged, .childChanged):
            changes[key] = .childChanged(key, change.node, old: earlier.oldNode ?? earlier.node)
        default:
            changes[key] = change
        }
    }

    /// The accumulated changes, in the order their keys were first seen.
    public var all: [Change] { order.compactMap { changes[$0] } }
}
