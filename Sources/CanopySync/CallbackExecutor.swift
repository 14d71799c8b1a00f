/// Where the engine runs user callbacks: observer events, cancel events and completions
/// (client-design.md §5.5).
///
/// The engine enqueues work from its actor in the order the events were raised; an
/// executor must run the work items one at a time in that order, and never synchronously
/// inside ``enqueue(_:)`` (the engine is mid-update when it enqueues).
public protocol CallbackExecutor: Sendable {
    /// Schedules `work` after everything enqueued before it.
    func enqueue(_ work: @escaping @Sendable () -> Void)
}
