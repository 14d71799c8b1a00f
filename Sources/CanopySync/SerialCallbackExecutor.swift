/// The default ``CallbackExecutor``: one task that runs enqueued work in FIFO order.
public final class SerialCallbackExecutor: CallbackExecutor {
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation

    /// Creates an executor and its draining task.
    public init() {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        self.continuation = continuation
        Task {
            for await work in stream { work() }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Schedules `work` after everything enqueued before it.
    public func enqueue(_ work: @escaping @Sendable () -> Void) {
        continuation.yield(work)
    }
}
