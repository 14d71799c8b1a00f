import Foundation

/// A value delivered once, from any thread, to one or more async waiters.
///
/// The service thread fulfils it (it never awaits); Swift tasks await ``value``. Later
/// fulfilments are ignored, so racing outcomes (an error callback after shutdown) are harmless.
final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Value?
    private var waiters: [CheckedContinuation<Value, Never>] = []

    /// Delivers `value` unless a value was already delivered; returns whether this call won.
    @discardableResult
    func fulfill(_ value: Value) -> Bool {
        let toResume: [CheckedContinuation<Value, Never>]? = lock.withLock {
            if result != nil { return nil }
            result = value
            let taken = waiters
            waiters.removeAll()
            return taken
        }
        guard let toResume else { return false }
        for waiter in toResume { waiter.resume(returning: value) }
        return true
    }

    /// The delivered value, or nil while pending.
    var current: Value? { lock.withLock { result } }

    /// Waits for the value.
    var value: Value {
        get async {
            await withCheckedContinuation { waiter in
                let ready: Value? = lock.withLock {
                    if let result { return result }
                    waiters.append(waiter)
                    return nil
                }
                if let ready { waiter.resume(returning: ready) }
            }
        }
    }
}
