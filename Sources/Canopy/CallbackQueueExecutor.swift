import CanopySync
import Foundation
import Synchronization

/// Runs the engine's callbacks on a database's ``Database/callbackQueue``.
///
/// The queue is read when each callback is enqueued, so changing the queue takes effect for
/// the callbacks raised afterwards. With a serial queue (the default) callbacks run one at a
/// time in the order the engine raised them.
final class CallbackQueueExecutor: CallbackExecutor {
    private let queue: Mutex<DispatchQueue>

    init(queue: DispatchQueue) {
        self.queue = Mutex(queue)
    }

    /// The queue callbacks go to.
    var current: DispatchQueue {
        get { queue.withLock { $0 } }
        set { queue.withLock { $0 = newValue } }
    }

    func enqueue(_ work: @escaping @Sendable () -> Void) {
        current.async(execute: work)
    }
}
