import Synchronization

/// Items delivered by one producer and awaited by one test, each wait bounded by a timeout
/// so that a missing item fails the test instead of hanging it.
final class Mailbox<Item: Sendable>: Sendable {
    /// What a wait ends with.
    enum Outcome: Sendable {
        /// The next item.
        case item(Item)
        /// The producer finished and every item was consumed.
        case finished
        /// Nothing arrived in time.
        case timedOut
    }

    private struct State: Sendable {
        var items: [Item] = []
        var finished = false
        var waiter: CheckedContinuation<Outcome, Never>?
        var waiterID = 0
    }

    private let state = Mutex(State())

    /// Hands an item to the waiting reader, or keeps it.
    func deliver(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard let waiter = state.waiter else {
                state.items.append(item)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .item(item))
    }

    /// Marks the end of the items.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .finished)
    }

    /// The next item, the end, or ``Outcome/timedOut`` after `timeout`.
    func next(timeout: Duration) async -> Outcome {
        await withCheckedContinuation { continuation in
            let (ready, id) = state.withLock { state -> (Outcome?, Int) in
                if !state.items.isEmpty { return (.item(state.items.removeFirst()), 0) }
                if state.finished { return (.finished, 0) }
                state.waiterID += 1
                state.waiter = continuation
                return (nil, state.waiterID)
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let waiter = self.state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                    guard state.waiterID == id, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume(returning: .timedOut)
            }
        }
    }
}
