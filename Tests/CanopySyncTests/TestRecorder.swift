import Synchronization

/// Collects values delivered from other tasks (events, completions) and lets a test wait,
/// with a timeout, until the collected values satisfy a condition.
final class TestRecorder<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Records a value and wakes the waiters whose condition now holds.
    func append(_ element: Element) {
        let ready: [Waiter] = state.withLock { state in
            state.items.append(element)
            let items = state.items
            let ready = state.waiters.filter { $0.predicate(items) }
            state.waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Everything recorded so far.
    var items: [Element] { state.withLock { $0.items } }

    /// Waits until `predicate` holds for the recorded values; `false` after `timeout`.
    func wait(timeout: Duration = .seconds(20), until predicate: @escaping @Sendable ([Element]) -> Bool) async -> Bool
    {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let expired: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            expired?.continuation.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let satisfied = state.withLock { state in
                if predicate(state.items) { return true }
                state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume(returning: true) }
        }
    }

    /// Waits until at least `count` values are recorded.
    func wait(forCount count: Int, timeout: Duration = .seconds(20)) async -> Bool {
        await wait(timeout: timeout) { $0.count >= count }
    }
}
