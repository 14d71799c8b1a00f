import CanopySync

/// The ordered call mailbox between the public API and the engine actor
/// (client-design.md §5.5).
///
/// Public calls made one after another (`setValue` then `observe`, `observe` then
/// `removeObserver`) must reach the engine in that order; a `Task` per call would not
/// guarantee it. Every call is posted here and one long-lived task runs them against the
/// engine one at a time, in posting order. Engine calls posted here only enqueue work and
/// return; completions arrive through callbacks.
final class EngineMailbox: Sendable {
    typealias Call = @Sendable (SyncEngine) async -> Void

    private let continuation: AsyncStream<Call>.Continuation
    /// The engine the calls run against.
    let engine: SyncEngine

    init(engine: SyncEngine) {
        self.engine = engine
        let (calls, continuation) = AsyncStream.makeStream(of: Call.self)
        self.continuation = continuation
        Task {
            for await call in calls { await call(engine) }
        }
    }

    /// Closes the engine after the calls already posted, then ends the draining task.
    deinit {
        continuation.yield { await $0.close() }
        continuation.finish()
    }

    /// Runs `call` against the engine after every call posted before it.
    func post(_ call: @escaping Call) {
        continuation.yield(call)
    }
}
