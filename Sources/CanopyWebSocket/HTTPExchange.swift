import CWebSockets
import Foundation

/// One HTTP request/response on a listener: the request gathered on the service thread, the
/// handler run on a Swift task, and the response written back one chunk per writable
/// callback. A client that does not read its response is bounded by ``OutgoingLimits``: a
/// stream whose unwritten chunks pass the byte limit, or any response whose writes make no
/// progress for the stall timeout, loses its connection.
/// Properties marked "service thread" are touched only by callbacks.
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

    // Service thread only.
    private(set) var wsi: OpaquePointer?
    private var rejected = false
    /// When the last write went through, or output became pending after a quiet spell.
    private var lastProgress = ContinuousClock.now
    private var timerArmed = false
    /// Whether the handler was started: libwebsockets repeats the body-completion callback
    /// while a pipelined request waits behind this one, and the handler runs once.
    private var dispatched = false
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
    }

    /// Appends received body bytes; answers `413` and stops collecting once the body grows
    /// past the limit (service thread).
    func appendBody(_ input: UnsafeMutableRawPointer?, _ length: Int) {
        guard !rejected, let input, length > 0 else { return }
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
            headers: [
                HTTPHeader("content-type", "application/json; charset=utf-8"), HTTPHeader("connection", "close"),
            ],
            contentLength: body.count, kind: .complete)
        enqueue(body)
        finish()
    }

    /// Starts the handler on a Swift task unless the request was already answered or handed
    /// over (service thread). The service thread does not wait.
    func dispatch(to handler: any HTTPHandler) {
        guard !rejected, !dispatched else { return }
        dispatched = true
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
        loop.schedule { [self] in
            guard let wsi else { return }
            lws_callback_on_writable(wsi)
            lastProgress = .now
            watchForStall(wsi)
        }
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
        let step: WriteStep = lock.withLock {
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
        switch step {
        case .idle:
            return 0
        case .headers(let status, let headers, let contentLength, let final):
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

    private func completeTransaction(_ wsi: OpaquePointer) -> Int32 {
        let closeNow = lock.withLock {
            closed = true
            return closesAfterResponse
        }
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
