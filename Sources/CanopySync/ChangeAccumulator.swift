import CanopyTree

/// Collects the child changes of one view operation, folding repeated changes to the same
/// key (client-design.md §5.1).
public struct ChangeAccumulator: Sendable {
    private var changes: [ChildKey: Change] = [:]
    private var order: [ChildKey] = []

    /// An empty accumulator.
    public init() {}

    /// Records a child change, folding it with an earlier change to the same key.
    public mutating func track(_ change: Change) {
        guard let key = change.childKey else { preconditionFailure("only child changes are accumulated") }
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
            preconditionFailure("illegal change sequence \(earlier.type) then \(change.type) for \(key)")
        }
    }

    /// The accumulated changes, in the order their keys were first seen.
    public var all: [Change] { order.compactMap { changes[$0] } }
}
