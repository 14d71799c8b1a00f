/// A listener attached to a query: which event types it wants and whether it wants to hear
/// about cancellation (client-design.md §5.5).
///
/// Registrations are matched by identity: removing one registration removes that object;
/// the same object may be registered on several queries.
public protocol EventRegistration: AnyObject {
    /// Whether the registration receives events of `type`.
    func responds(to type: EventType) -> Bool

    /// Whether the registration receives a cancel event when its listen fails.
    var receivesCancel: Bool { get }
}
