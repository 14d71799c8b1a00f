import CWebSockets
import Foundation
import Synchronization

/// Receives libwebsockets callbacks for one context. Every method runs on that context's
/// service thread.
protocol LWSCallbackHandler: AnyObject {
    /// Handles one callback; the return value is libwebsockets' (non-zero closes the connection).
    func handle(
        _ wsi: OpaquePointer,
        _ reason: lws_callback_reasons,
        _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32

    /// Called once, just before the context is destroyed: finish every open stream.
    func serviceWillStop()
}

/// One libwebsockets context and the dedicated thread that owns it.
///
/// libwebsockets is not thread-safe except for `lws_cancel_service`, so the context is
/// created, serviced and destroyed on one `Thread`. Other threads hand work to it with
/// ``schedule(_:)``: the job is queued under a lock and `lws_cancel_service` wakes the
/// service loop, which runs queued jobs between `lws_service` calls. The service thread
/// never waits on Swift concurrency; it reports to Swift through continuations.
final class LWSServiceLoop: @unchecked Sendable {
    /// Where library and loop log lines go.
    let logger: WebSocketLogger
    private let name: String
    private let lock = NSLock()
    // Guarded by `lock`.
    private var context: OpaquePointer?
    private var jobs: [@Sendable () -> Void] = []
    private var stopRequested = false
    private var finished = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private var recentLog: [String] = []
    // Service thread only.
    private var handler: LWSCallbackHandler?
    private var acceptingCallbacks = false
    /// Counted by the service thread, read from anywhere.
    private let passes = Atomic<Int>(0)

    private static let recentLogCapacity = 16

    /// Creates a loop; nothing runs until ``start(handler:resources:createContext:)``.
    init(name: String, logger: WebSocketLogger) {
        self.name = name
        self.logger = logger
    }

    /// Starts the service thread and creates the context on it. The loop keeps `handler`
    /// until it stops.
    ///
    /// `createContext` runs on the service thread with the pointer to install as the
    /// context's user pointer; it returns the context, or nil when libwebsockets refused
    /// (the reason is then in the log lines carried by the error).
    func start(
        handler: LWSCallbackHandler,
        resources: LWSContextResources,
        createContext: @escaping @Sendable (UnsafeMutableRawPointer, LWSContextResources) -> OpaquePointer?
    ) async throws(WebSocketError) {
        LWSLogRouting.install()
        self.handler = handler
        let result: Result<Void, WebSocketError> = await withCheckedContinuation { started in
            let thread = Thread {
                LWSLogRouting.setCurrentLoop(self)
                self.run(resources: resources, createContext: createContext, started: started)
                LWSLogRouting.setCurrentLoop(nil)
            }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
        try result.get()
    }

    /// Queues `job` to run on the service thread and wakes the loop. Returns false when the
    /// loop has stopped (the job will never run).
    @discardableResult
    func schedule(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard !finished, !stopRequested else { return false }
            jobs.append(job)
            // One wake-up per batch: the service thread drains every queued job when it wakes.
            if jobs.count == 1, let context { lws_cancel_service(context) }
            return true
        }
    }

    /// Asks the loop to finish: open connections are dropped and the context destroyed on the
    /// service thread. Safe from any thread, including the service thread.
    func requestStop() {
        lock.withLock {
            stopRequested = true
            if let context { lws_cancel_service(context) }
        }
    }

    /// Requests a stop and waits until the context has been destroyed.
    func stop() async {
        requestStop()
        await waitUntilFinished()
    }

    /// Waits until the service thread has destroyed the context and exited.
    func waitUntilFinished() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let alreadyFinished = lock.withLock {
                if finished { return true }
                stopWaiters.append(waiter)
                return false
            }
            if alreadyFinished { waiter.resume() }
        }
    }

    /// How many times the service thread has called `lws_service` so far: a loop that sleeps
    /// while nothing happens makes a few passes per network event, a spinning one thousands.
    var servicePasses: Int { passes.load(ordering: .relaxed) }

    /// The last lines libwebsockets logged on this loop's thread (warnings and errors), oldest
    /// first; used to explain connection failures.
    func recentLogLines() -> [String] {
        lock.withLock { recentLog }
    }

    /// Records a line logged by libwebsockets on this loop's thread.
    func record(level: WebSocketLogLevel, line: String) {
        if level >= .warning {
            lock.withLock {
                recentLog.append(line)
                if recentLog.count > Self.recentLogCapacity { recentLog.removeFirst() }
            }
        }
        logger.log(level, "\(name): \(line)")
    }

    /// Forwards one callback to the handler (service thread only).
    func dispatch(
        _ wsi: OpaquePointer,
        _ reason: lws_callback_reasons,
        _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32 {
        guard acceptingCallbacks, let handler else {
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return handler.handle(wsi, reason, user, input, length)
    }

    private func run(
        resources: LWSContextResources,
        createContext: @Sendable (UnsafeMutableRawPointer, LWSContextResources) -> OpaquePointer?,
        started: CheckedContinuation<Result<Void, WebSocketError>, Never>
    ) {
        acceptingCallbacks = true
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard let created = createContext(user, resources) else {
            shutDownHandler()
            resources.release()
            let log = recentLogLines()
            finish()
            started.resume(returning: .failure(.contextCreationFailed(log: log)))
            return
        }
        lock.withLock { context = created }
        started.resume(returning: .success(()))
        // Jobs queued or a stop requested before the context existed did not wake the loop,
        // so both are checked before every service call.
        while true {
            runJobs()
            if lock.withLock({ stopRequested }) { break }
            passes.add(1, ordering: .relaxed)
            if lws_service(created, 0) < 0 { break }
        }
        shutDownHandler()
        lock.withLock {
            context = nil
            jobs.removeAll()
        }
        lws_context_destroy(created)
        resources.release()
        finish()
    }

    private func runJobs() {
        let pending: [@Sendable () -> Void] = lock.withLock {
            let taken = jobs
            jobs.removeAll(keepingCapacity: true)
            return taken
        }
        for job in pending { job() }
    }

    private func shutDownHandler() {
        handler?.serviceWillStop()
        acceptingCallbacks = false
        handler = nil
    }

    private func finish() {
        let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
            finished = true
            let taken = stopWaiters
            stopWaiters.removeAll()
            return taken
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// The one libwebsockets protocol callback every context uses. C callbacks cannot capture,
/// so the owning loop is found through the context's user pointer.
func canopyLWSCallback(
    _ wsi: OpaquePointer?,
    _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let loop = Unmanaged<LWSServiceLoop>.fromOpaque(owner).takeUnretainedValue()
    return loop.dispatch(wsi, reason, user, input, length)
}
