import Synchronization

/// A task forwarding one sequence into another, started late and cancellable early: a
/// cancel before the start makes the start a no-op.
final class ForwardingTask: Sendable {
    private enum State {
        case waiting
        case running(Task<Void, Never>)
        case cancelled
    }

    private let state = Mutex(State.waiting)

    /// Starts `work` unless cancelled already.
    func start(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard case .waiting = state else { return }
            state = .running(Task { await work() })
        }
    }

    /// Cancels the task (or its future start).
    func cancel() {
        state.withLock { state in
            if case .running(let task) = state { task.cancel() }
            state = .cancelled
        }
    }
}
