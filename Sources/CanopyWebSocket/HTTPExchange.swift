import CWebSockets
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP request/response on a listener: the request gathered on the service thread, the
/// handler run on a Swift task, and the response written back one chunk per writable
/// callback. A client that does not read its response is bounded by ``OutgoingLimits``: a
/// stream whose unwritten chunks pass the byte limit, or any response whose writes make no
/// progress for the stall timeout, loses its connection.
/// Properties marked "service thread" are touched only by callbacks and loop jobs.
///
/// Keep-alive and pipelining with libwebsockets 4.1.6. When a client writes its next request
/// before this one is answered (HTTP/1.1 pipelining), libwebsockets keeps the bytes it read
/// beyond this request in a per-connection buffer and, once the transaction completes, parses
/// the next request from that buffer. For a request with a body that path is broken in 4.1.6:
/// `lws_http_action` feeds the buffer from its start — the request's own header bytes — to the
/// body, and then loops forever on the service thread once the body is "complete". While a
/// handler runs, buffered bytes also make the service loop spin (repeated body-completion
/// callbacks, or `poll` with a zero timeout). So an exchange:
/// - pauses the connection's reading (`lws_rx_flow_control`) from the moment its request is
///   complete until its response is ready to write, and again while a stream waits for its
///   next chunk, so nothing spins while the handler works;
/// - learns whether libwebsockets holds bytes beyond the request: when reading resumes with
///   such bytes buffered, libwebsockets asks for a writable callback of its own, and a repeated
///   body-completion or a body chunk after the body reveals them too;
/// - when it holds such bytes, answers with `Connection: close` and closes after the response,
///   so a request is never parsed from that buffer. The client sends the unanswered requests
///   again on a new connection, as HTTP/1.1 asks of pipelining clients; none of them ran.
/// Clients that wait for each response before sending the next request (every SDK and browser)
/// never leave bytes behind a request and keep their connection.
final class HTTPExchange: @unchecked Sendable {
    private enum Body {
        case complete
        case stream
    }

    private enum WriteStep {
        /// The status line and headers; `final` when nothing follows them (an empty complete
        /// body), so the transaction completes in the same callback.
        case headers(status: Int, headers: [HTTPHeader], contentLength: Int?, final: Bool)
        case chunk([UInt8], final: Bool)
        case end
        case idle
    }

    private let loop: LWSServiceLoop
    private let maximumBodyBytes: Int
    private let limits: OutgoingLimits
    /// The request, complete once ``dispatch(to:)`` runs (service thread until then).
    private(set) var request: HTTPRequest

    private let lock = NSLock()
    // Guarded by `lock`.
    private var head: (status: Int, headers: [HTTPHeader], contentLength: Int?)?
    private var headSent = false
    private var chunks: [[UInt8]] = []
    private var chunkHead = 0
    private var queued = 0
    private var bodyKind: Body?
    private var finished = false
    private var writeRequested = false
    private var closed = false
    private var task: Task<Void, Never>?
    private var closesAfterResponse = false

    /// How the exchange learns whether libwebsockets buffered bytes behind the request.
    private enum BufferProbe {
        /// Reading has not resumed since the request was complete.
        case pending
        /// Reading resumed; one service pass goes by before the first write is requested.
        case running
        /// Known: bytes behind the request are reported as they arrive.
        case done
    }

    // Service thread only.
    private(set) var wsi: OpaquePointer?
    private var rejected = false
    /// When the last write went through, or output became pending after a quiet spell.
    private var lastProgress = ContinuousClock.now
    private var timerArmed = false
    /// Whether the handler was started; it runs once.
    private var dispatched = false
    /// Whether libwebsockets reported the end of the announced body.
    private var bodyComplete = false
    /// Whether the connection's reading is paused by this exchange.
    private var readingPaused = false
    private var probe = BufferProbe.pending
    /// Whether libwebsockets holds bytes that arrived after this request: the response closes
    /// the connection.
    private var bytesWaitBehindRequest = false
    private var streamCancelled = false
    /// Whether the request announced a body with `Content-Length` (still to be received).
    let expectsBody: Bool
    /// Whether the request's `Content-Length` exceeds the body limit: it is answered `413`
    /// from its headers alone, without reading the body.
    let announcesOversizedBody: Bool
    /// Whether the request announced a chunked body, which this host does not accept.
    let hasChunkedBody: Bool
    /// Whether the response must carry headers only (a `HEAD` request).
    private let omitsBody: Bool

    private static let prefix = Int(canopy_lws_pre)
    private static let chunkSize = 32 * 1024

    /// Captures the request of `wsi` (service thread, in the HTTP callback).
    init(
        wsi: OpaquePointer, loop: LWSServiceLoop, path: String, customHeaders: [String], maximumBodyBytes: Int,
        limits: OutgoingLimits
    ) {
        self.wsi = wsi
        self.loop = loop
        self.maximumBodyBytes = maximumBodyBytes
        self.limits = limits
        let method = LWSRequestHeaders.method(wsi)?.method ?? "GET"
        let headers = LWSRequestHeaders.headers(wsi, custom: customHeaders)
        request = HTTPRequest(
            method: method, path: path, queryItems: LWSRequestHeaders.queryItems(wsi), headers: headers,
            remoteAddress: LWSRequestHeaders.remoteAddress(wsi))
        let declaredLength = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) }
        expectsBody = (declaredLength ?? 0) > 0
        announcesOversizedBody = (declaredLength ?? 0) > maximumBodyBytes
        hasChunkedBody = declaredLength == nil && headers.contains { $0.name == "transfer-encoding" }
        omitsBody = method == "HEAD"
        // Without `Content-Length`, libwebsockets takes whatever follows a POST, PUT or PATCH as
        // its body (up to 100 MB) and would swallow the next request: such a request has no
        // body here, and its connection closes after the response.
        closesAfterResponse = declaredLength == nil && ["POST", "PUT", "PATCH"].contains(method)
    }

    /// Appends received body bytes; answers `413` and stops collecting once the body grows
    /// past the limit (service thread). Bytes arriving once the handler runs follow the request.
    func appendBody(_ input: UnsafeMutableRawPointer?, _ length: Int) {
        guard !rejected, let input, length > 0 else { return }
        if dispatched {
            bytesWaitBehindRequest = true
            return
        }
        if request.body.count + length > maximumBodyBytes {
            request.body = []
            reject(status: 413, message: "request body larger than \(maximumBodyBytes) bytes")
            return
        }
        request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
    }

    /// Answers `status` with a JSON error without consulting the handler, then closes the
    /// connection (service thread).
    func reject(status: Int, message: String) {
        guard !rejected else { return }
        rejected = true
        let body = Array(#"{"error":"\#(message)"}"#.utf8)
        lock.withLock { closesAfterResponse = true }
        accept(
            status: status,
            headers: [HTTPHeader("content-type", "application/json; charset=utf-8")],
            contentLength: body.count, kind: .complete)
        enqueue(body)
        finish()
    }

    /// Notes that libwebsockets received the whole announced body (service thread); true the
    /// first time, when the handler should start. libwebsockets repeats the callback each time
    /// it serves bytes that arrived behind the body, which this notes instead.
    func completeBody() -> Bool {
        guard expectsBody, !rejected else { return false }
        if bodyComplete {
            bytesWaitBehindRequest = true
            return false
        }
        bodyComplete = true
        return true
    }

    /// Starts the handler on a Swift task unless the request was already answered or handed
    /// over, and pauses the connection's reading until the response is ready (service thread,
    /// in the callback that completed the request). The service thread does not wait.
    func dispatch(to handler: any HTTPHandler) {
        guard !rejected, !dispatched else { return }
        dispatched = true
        if let wsi {
            // libwebsockets holds no bytes of this connection yet (a request is never parsed
            // from its buffer), so pausing here takes effect at once and asks for nothing else.
            readingPaused = true
            lws_rx_flow_control(wsi, 0)
        }
        let request = request
        let task = Task { [self] in
            let response = await handler.respond(to: request)
            await deliver(response)
        }
        lock.withLock { self.task = task }
    }

    private func deliver(_ response: HTTPResponse) async {
        switch response {
        case .complete(let status, let headers, let body):
            var pieces: [[UInt8]] = []
            if !omitsBody {
                var offset = 0
                while offset < body.count {
                    let end = min(offset + Self.chunkSize, body.count)
                    pieces.append(Array(body[offset..<end]))
                    offset = end
                }
            }
            // Head, body and end in one step: the write of the response's last byte must also
            // complete the transaction, or a keep-alive client's next request can arrive while
            // libwebsockets still counts it as part of this one.
            accept(status: status, headers: headers, contentLength: body.count, kind: .complete, body: pieces)
        case .stream(let status, let headers, let body):
            accept(status: status, headers: headers, contentLength: nil, kind: .stream)
            for await chunk in body {
                if !enqueue(chunk) { break }
            }
            finish()
        }
    }

    /// Sets the response head; with `body`, also the whole body, and ends the response.
    private func accept(status: Int, headers: [HTTPHeader], contentLength: Int?, kind: Body, body: [[UInt8]]? = nil) {
        let filtered = headers.filter { $0.name != "content-length" && $0.name != "transfer-encoding" }
        lock.withLock {
            head = (status, filtered, contentLength)
            bodyKind = kind
            if let body, !closed {
                chunks.append(contentsOf: body.filter { !$0.isEmpty })
                queued += body.reduce(0) { $0 + $1.count }
                finished = true
            }
        }
        kick()
    }

    private enum EnqueueOutcome {
        case queued
        case refused
        case overflowed(task: Task<Void, Never>?)
    }

    /// Queues one chunk of a streaming (or rejection) body; answers false once the connection
    /// is gone, or when the chunk would take the unwritten bytes past the limit — the
    /// connection is then dropped. A chunk larger than the limit on its own is accepted when
    /// nothing else is waiting.
    @discardableResult
    private func enqueue(_ chunk: [UInt8]) -> Bool {
        guard !chunk.isEmpty else { return true }
        let outcome: EnqueueOutcome = lock.withLock {
            if closed { return .refused }
            if queued > 0, queued + chunk.count > limits.maximumQueuedBytes {
                closed = true
                chunks.removeAll()
                chunkHead = 0
                queued = 0
                return .overflowed(task: task)
            }
            chunks.append(chunk)
            queued += chunk.count
            return .queued
        }
        switch outcome {
        case .queued:
            kick()
            return true
        case .refused:
            return false
        case .overflowed(let running):
            running?.cancel()
            let limit = limits.maximumQueuedBytes
            let peer = "\(request.method) \(request.path) from \(request.remoteAddress)"
            loop.schedule { [self] in
                loop.logger.log(.error, "ending \(peer): client too slow (more than \(limit) bytes queued)")
                if let wsi { OutgoingLimits.drop(wsi) }
            }
            return false
        }
    }

    private func finish() {
        lock.withLock { finished = true }
        kick()
    }

    private func kick() {
        let needed: Bool = lock.withLock {
            if closed || writeRequested { return false }
            writeRequested = true
            return true
        }
        guard needed else { return }
        loop.schedule { [self] in requestWrite() }
    }

    /// Asks libwebsockets for a writable callback (service thread, in a loop job). The first
    /// time after the request, reading resumes and one service pass goes by before the write
    /// is requested: libwebsockets answers resumed reading with a writable callback of its own
    /// exactly when it buffered bytes behind the request.
    private func requestWrite() {
        guard let wsi else { return }
        lastProgress = .now
        if readingPaused {
            readingPaused = false
            if probe == .pending {
                probe = .running
                // The socket's own writability decides whether that callback can come within
                // the pass; if not, assume bytes are buffered (the connection then closes).
                let writable = Self.socketAcceptsWrites(wsi)
                lws_rx_flow_control(wsi, 1)
                watchForStall(wsi)
                loop.schedule { [self] in
                    probe = .done
                    if !writable { bytesWaitBehindRequest = true }
                    if let wsi = self.wsi { lws_callback_on_writable(wsi) }
                }
                return
            }
            lws_rx_flow_control(wsi, 1)
        }
        lws_callback_on_writable(wsi)
        watchForStall(wsi)
    }

    private static func socketAcceptsWrites(_ wsi: OpaquePointer) -> Bool {
        var descriptor = pollfd(fd: Int32(lws_get_socket_fd(wsi)), events: Int16(POLLOUT), revents: 0)
        return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLOUT) != 0
    }

    private func watchForStall(_ wsi: OpaquePointer) {
        guard !timerArmed else { return }
        timerArmed = true
        OutgoingLimits.armTimer(wsi, after: limits.stalledWriteTimeout)
    }

    /// Handles the connection's timer (service thread): drops the connection when pending
    /// output made no progress for the stall timeout; keeps watching while output is pending.
    /// The timer may have been armed by an earlier exchange on the same keep-alive connection;
    /// this exchange judges by its own state.
    func timerFired() -> Int32 {
        guard let wsi else { return 0 }
        timerArmed = false
        let pending = lock.withLock { !closed && writeRequested } || lws_partial_buffered(wsi) != 0
        guard pending else { return 0 }
        let waited = lastProgress.duration(to: .now)
        if waited >= limits.stalledWriteTimeout {
            loop.logger.log(
                .error,
                "dropping \(request.method) \(request.path) from \(request.remoteAddress): "
                    + "no write went through for \(limits.stalledWriteTimeout)")
            OutgoingLimits.drop(wsi)
            return 0
        }
        timerArmed = true
        OutgoingLimits.armTimer(wsi, after: limits.stalledWriteTimeout - waited)
        return 0
    }

    /// Stops the handler or stream while the connection stays up: a stream ends (and its
    /// connection closes) after what was already queued is written.
    func cancelHandler() {
        lock.withLock { task }?.cancel()
    }

    /// The connection went away (service thread): stop the handler or stream.
    func connectionClosed() {
        wsi = nil
        let running: Task<Void, Never>? = lock.withLock {
            closed = true
            chunks.removeAll()
            chunkHead = 0
            queued = 0
            return task
        }
        running?.cancel()
    }

    /// Writes the next piece of the response (service thread).
    func writable() -> Int32 {
        guard let wsi else { return -1 }
        // The transaction is over (or the connection is being dropped); the connection waits
        // for its next request.
        if lock.withLock({ closed }) { return 0 }
        if probe == .running {
            // Asked for by libwebsockets itself: it buffered bytes behind the request.
            bytesWaitBehindRequest = true
            return 0
        }
        let (step, kind): (WriteStep, Body?) = lock.withLock {
            (nextStep(), bodyKind)
        }
        if bytesWaitBehindRequest, kind == .stream, !streamCancelled {
            // A stream never ends by itself, so whatever waits behind it would wait forever,
            // with the buffered bytes keeping the loop busy: end it after what is queued.
            streamCancelled = true
            cancelHandler()
        }
        return write(step, wsi)
    }

    /// The next piece to write; `.idle` (with no write pending any more) when nothing is
    /// queued. Called under `lock`.
    private func nextStep() -> WriteStep {
        guard let head else {
            writeRequested = false
            return .idle
        }
        if !headSent {
            headSent = true
            let final = finished && chunkHead >= chunks.count && bodyKind == .complete
            return .headers(
                status: head.status, headers: head.headers, contentLength: head.contentLength, final: final)
        }
        if chunkHead < chunks.count {
            let chunk = chunks[chunkHead]
            chunkHead += 1
            queued -= chunk.count
            if chunkHead == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                chunkHead = 0
            }
            let isLast = finished && chunks.isEmpty && bodyKind == .complete
            return .chunk(chunk, final: isLast)
        }
        if finished { return .end }
        writeRequested = false
        return .idle
    }

    private func write(_ step: WriteStep, _ wsi: OpaquePointer) -> Int32 {
        switch step {
        case .idle:
            // A stream waiting for its next chunk: pause reading, or a client that sends
            // anything (or half-closes) would keep the loop busy until the next chunk. With no
            // bytes buffered behind the request the pause takes effect at once.
            if probe == .done, !bytesWaitBehindRequest, !readingPaused {
                readingPaused = true
                lws_rx_flow_control(wsi, 0)
            }
            return 0
        case .headers(let status, var headers, let contentLength, let final):
            if closesAfterResponseNow {
                headers = headers.filter { $0.name != "connection" } + [HTTPHeader("connection", "close")]
            }
            if writeHeaders(wsi, status: status, headers: headers, contentLength: contentLength) != 0 { return -1 }
            lastProgress = .now
            if final { return completeTransaction(wsi) }
            lws_callback_on_writable(wsi)
            watchForStall(wsi)
            return 0
        case .chunk(var chunk, let final):
            var buffer = [UInt8](repeating: 0, count: Self.prefix)
            buffer.append(contentsOf: chunk)
            chunk = []
            let length = buffer.count - Self.prefix
            let written = buffer.withUnsafeMutableBufferPointer { pointer -> Int32 in
                guard let base = pointer.baseAddress else { return -1 }
                return lws_write(wsi, base + Self.prefix, length, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            }
            if written < Int32(clamping: length) { return -1 }
            lastProgress = .now
            if final { return completeTransaction(wsi) }
            lws_callback_on_writable(wsi)
            watchForStall(wsi)
            return 0
        case .end:
            let kind = lock.withLock { bodyKind }
            // A stream has no length: the connection ends the body. A complete response whose
            // body was empty ends its transaction here.
            return kind == .stream ? -1 : completeTransaction(wsi)
        }
    }

    /// Whether the connection ends after this response (service thread).
    private var closesAfterResponseNow: Bool {
        bytesWaitBehindRequest || lock.withLock { closesAfterResponse }
    }

    private func completeTransaction(_ wsi: OpaquePointer) -> Int32 {
        let closeNow = closesAfterResponseNow
        lock.withLock { closed = true }
        if closeNow { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    private func writeHeaders(_ wsi: OpaquePointer, status: Int, headers: [HTTPHeader], contentLength: Int?) -> Int32 {
        let size = Self.prefix + 1024 + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 }
        var buffer = [UInt8](repeating: 0, count: size)
        return buffer.withUnsafeMutableBufferPointer { pointer -> Int32 in
            guard let base = pointer.baseAddress else { return -1 }
            let start = base + Self.prefix
            let end = base + pointer.count - 1
            var cursor: UnsafeMutablePointer<UInt8>? = start
            if lws_add_http_header_status(wsi, UInt32(clamping: status), &cursor, end) != 0 { return -1 }
            if !LWSHeaderWriter.append(headers, wsi, cursor: &cursor, end: end) { return -1 }
            if let contentLength {
                if lws_add_http_header_content_length(wsi, UInt64(contentLength), &cursor, end) != 0 { return -1 }
            }
            return lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 ? -1 : 0
        }
    }
}
