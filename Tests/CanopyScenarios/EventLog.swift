import Canopy
import Foundation
import Synchronization

/// Why a wait in a test failed.
public struct TestTimeout: Error, CustomStringConvertible {
    /// What was awaited, and for how long.
    public let description: String

    /// A failure described by `description`.
    public init(description: String) { self.description = description }
}

/// Collects values delivered by callbacks and lets a test await them in order, each wait
/// failing loudly after a generous timeout.
public final class EventLog<Element: Sendable>: Sendable {
    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let iterator: Mutex<AsyncStream<Element>.Iterator?>

    /// An empty log.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        iterator = Mutex(nil)
    }

    /// Records a value (from any thread).
    public func append(_ element: Element) {
        continuation.yield(element)
    }

    /// The next recorded value; throws after `seconds`.
    public func next(within seconds: Double = 20, _ what: String = "event") async throws -> Element {
        let stream = self.stream
        return try await withDeadline(seconds, what) {
            var iterator = stream.makeAsyncIterator()
            guard let value = await iterator.next() else { throw TestTimeout(description: "\(what): log ended") }
            return value
        }
    }

    /// The next `count` values.
    public func next(_ count: Int, within seconds: Double = 20, _ what: String = "events") async throws -> [Element] {
        var values: [Element] = []
        for index in 0..<count { values.append(try await next(within: seconds, "\(what) #\(index + 1)")) }
        return values
    }

    /// The next value satisfying `predicate`, skipping others.
    public func first(
        within seconds: Double = 20, _ what: String = "matching event", where predicate: @Sendable (Element) -> Bool
    ) async throws -> Element {
        while true {
            let value = try await next(within: seconds, what)
            if predicate(value) { return value }
        }
    }
}

/// Runs `work`, failing with ``TestTimeout`` after `seconds`.
public func withDeadline<T: Sendable>(
    _ seconds: Double, _ what: String, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TestTimeout(description: "timed out after \(seconds) s waiting for \(what)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TestTimeout(description: what) }
        return first
    }
}

/// Writes `value` without waiting for the server (the fire-and-forget `setValue`, which an
/// `async` context would resolve to the awaiting overload).
public func send(_ value: Any?, priority: Any? = nil, to ref: DatabaseReference) {
    if let priority {
        ref.setValue(value, andPriority: priority)
    } else {
        ref.setValue(value)
    }
}
