import Synchronization

/// An observer attached to a query through the engine: the event types it wants, its
/// callbacks and its handle (client-design.md §5.5).
///
/// The API layer creates the registration (so it can return the handle at once) and hands
/// it to ``SyncEngine/addObserver(_:for:)``. Callbacks run on the engine's
/// ``CallbackExecutor``. Once the engine has removed a registration, events still queued for
/// it are dropped; a cancel event is still delivered. A single-event registration
/// (`observeSingleEvent`) is removed by the engine when its first event is raised and
/// receives only that event.
public final class ObserverRegistration: EventRegistration, Sendable {
    private struct State {
        var isActive = true
        var hasFired = false
    }

    private static let handles = Atomic<UInt>(0)

    /// The handle identifying this registration (unique in the process, never 0).
    public let handle: UInt
    /// The event types delivered to the event callback.
    public let eventTypes: Set<EventType>
    /// Whether the registration ends after its first event.
    public let isSingleEvent: Bool
    private let onEvent: @Sendable (RaisedEvent) -> Void
    private let onCancel: (@Sendable (DatabaseError) -> Void)?
    private let state = Mutex(State())

    /// Creates a registration.
    ///
    /// - Parameters:
    ///   - eventTypes: The event types wanted; empty for a registration that only keeps a
    ///     view (and its listen) alive.
    ///   - isSingleEvent: Whether to stop after the first event.
    ///   - onEvent: Called with each event.
    ///   - onCancel: Called once when the listen fails; the registration is then gone.
    public init(
        eventTypes: Set<EventType>, isSingleEvent: Bool = false,
        onEvent: @escaping @Sendable (RaisedEvent) -> Void = { _ in },
        onCancel: (@Sendable (DatabaseError) -> Void)? = nil
    ) {
        self.handle = ObserverRegistration.handles.add(1, ordering: .relaxed).newValue
        self.eventTypes = eventTypes
        self.isSingleEvent = isSingleEvent
        self.onEvent = onEvent
        self.onCancel = onCancel
    }

    /// Whether the registration receives events of `type`.
    public func responds(to type: EventType) -> Bool { eventTypes.contains(type) }

    /// Whether the registration has a cancel callback.
    public var receivesCancel: Bool { onCancel != nil }

    /// Whether the engine still holds the registration.
    public var isActive: Bool { state.withLock { $0.isActive } }

    /// Marks the registration removed: events not yet delivered are dropped.
    func deactivate() {
        state.withLock { $0.isActive = false }
    }

    /// For a single-event registration: whether this is its first event (and so the one to
    /// deliver). Marks it fired and removed.
    func claimSingleEvent() -> Bool {
        state.withLock { state in
            guard !state.hasFired else { return false }
            state.hasFired = true
            state.isActive = false
            return true
        }
    }

    /// Runs the event callback; with `force`, even after removal (the single event).
    func deliver(_ event: RaisedEvent, force: Bool) {
        guard force || isActive else { return }
        onEvent(event)
    }

    /// Runs the cancel callback.
    func deliverCancel(_ error: DatabaseError) {
        onCancel?(error)
    }
}
