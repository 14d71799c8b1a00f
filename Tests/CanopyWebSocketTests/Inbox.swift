import Foundation

/// A test failure with a message that says what was being waited for.
struct WaitFailure: Error, CustomStringConvertible {
    var description: String
}

/// Buffers an `AsyncStream` so a test can take elements one at a time, each wait bounded by a
/// timeout that fails loudly.
actor Inbox<Element: Sendable> {
    private enum Delivery {
        case element(Element)
        case finished
        case timedOut
    }

    private var buffer: [Element] = []
    private var finished = false
    private var waiter: (id: Int, continuation: CheckedContinuation<Delivery, Never>)?
    private var nextWaiterID = 0

    init(_ stream: AsyncStream<Element>) {
        Task { [weak self] in
            for await element in stream {
                guard let self else { return }
                await self.push(element)
            }
            await self?.finish()
        }
    }

    private func push(_ element: Element) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: .element(element))
        } else {
            buffer.append(element)
        }
    }

    private func finish() {
        finished = true
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: .finished)
        }
    }

    private func expire(_ id: Int) {
        if let waiter, waiter.id == id {
            self.waiter = nil
            waiter.continuation.resume(returning: .timedOut)
        }
    }

    /// The next element; throws when the stream finished or nothing came within `timeout`.
    func next(_ what: String, timeout: Duration = .seconds(15)) async throws -> Element {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if finished { throw WaitFailure(description: "stream finished while waiting for \(what)") }
        let id = nextWaiterID
        nextWaiterID += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        let delivery = await withCheckedContinuation { continuation in
            waiter = (id, continuation)
        }
        timer.cancel()
        switch delivery {
        case .element(let element): return element
        case .finished: throw WaitFailure(description: "stream finished while waiting for \(what)")
        case .timedOut: throw WaitFailure(description: "timed out after \(timeout) waiting for \(what)")
        }
    }

    /// Whether the stream has finished and every element was taken.
    var isDrained: Bool { finished && buffer.isEmpty }
}

/// Runs `body` with a deadline; throws a loud failure when it does not finish in time.
func withDeadline<T: Sendable>(
    _ what: String, seconds: Double = 15, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw WaitFailure(description: "timed out after \(seconds) s: \(what)")
        }
        return value
    }
}
