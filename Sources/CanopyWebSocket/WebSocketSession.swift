import CWebSockets
import CanopyWire
import Foundation

/// Where a ``WebSocketSession`` reports what happens on its connection. Called on the service
/// thread (or, for `closed`, on whichever thread finds the loop already stopped); each
/// closure must only hand the event on (yield to a continuation), never block.
struct WebSocketSessionSink: Sendable {
    /// One complete text message (fragmented frames reassembled).
    var message: @Sendable (String) -> Void
    /// A pong answering one of our pings.
    var pong: @Sendable () -> Void
    /// The connection ended; called exactly once, last.
    var closed: @Sendable (TransportCloseReason) -> Void
}

/// One open websocket (client or server side) bridged between the service thread and Swift.
///
/// Swift code calls ``send(_:)``, ``sendPing()`` and ``close(code:reason:)`` from any thread:
/// frames are queued under a lock and the service thread is woken to write them, one
/// `lws_write` per writable callback. What arrives is reported to the ``WebSocketSessionSink``.
/// Incoming messages are bounded by `maximumMessageBytes`. On a server connection the outgoing
/// side is bounded by ``OutgoingLimits``: a client that does not read what is queued for it is
/// closed with status 1008 ("client too slow") once the queue passes the byte limit, or
/// dropped once no write has gone through for the stall timeout; after the server's close
/// frame the peer gets a short wait to answer before the socket is dropped. A client
/// connection (no limits) queues without bound.
/// Properties marked "service thread" are touched only by libwebsockets callbacks.
final class WebSocketSession: @unchecked Sendable {
    private enum Outgoing {
        case text([UInt8])
        case ping

        /// The payload bytes the item holds in the queue.
        var byteCount: Int {
            switch self {
            case .text(let frame): frame.count - WebSocketSession.prefix
            case .ping: 0
            }
        }
    }

    private let sink: WebSocketSessionSink
    private let loop: LWSServiceLoop
    private let maximumMessageBytes: Int
    private let limits: OutgoingLimits?
    /// Who is on the other end, for log lines.
    private let peer: String

    private let lock = NSLock()
    // Guarded by `lock`.
    private var outgoing: [Outgoing] = []
    private var outgoingHead = 0
    private var queued = 0
    private var writeRequested = false
    private var closeRequest: (code: UInt16, reason: String)?
    private var ended = false

    // Service thread only.
    private(set) var wsi: OpaquePointer?
    private var receiveBuffer: [UInt8] = []
    private var peerClosed = false
    /// When the last write went through, or output became pending after a quiet spell.
    private var lastProgress = ContinuousClock.now
    private var timerArmed = false
    /// The close frame was handed to libwebsockets: the next timer drops the socket.
    private var awaitingCloseAcknowledgement = false

    private static let prefix = Int(canopy_lws_pre)
    private static let pingPayload = Array("canopy".utf8)
    /// Normal closure status code.
    static let normalClose: UInt16 = 1000
    /// "Going away" status code.
    static let goingAwayClose: UInt16 = 1001
    /// "Message too big" status code.
    static let messageTooBigClose: UInt16 = 1009
    /// "Policy violation" status code, sent to a client too slow to read what it is sent.
    static let policyViolationClose: UInt16 = 1008

    /// Creates a session served by `loop`; bind it to its connection with ``attach(_:)``.
    /// `limits` bound the outgoing side (server connections); `peer` names the other end in
    /// log lines.
    init(
        loop: LWSServiceLoop, maximumMessageBytes: Int, limits: OutgoingLimits? = nil, peer: String = "websocket",
        sink: WebSocketSessionSink
    ) {
        self.loop = loop
        self.maximumMessageBytes = maximumMessageBytes
        self.limits = limits
        self.peer = peer
        self.sink = sink
    }

    /// Payload bytes queued for the peer and not yet handed to the socket.
    var queuedBytes: Int { lock.withLock { queued } }

    /// Queues one text frame. Throws ``WebSocketError/connectionClosed`` once closing.
    func send(_ text: String) throws(WebSocketError) {
        try enqueue([Self.textItem(text)])
    }

    /// Queues the text frames of one message together: with limits, the message is refused
    /// whole — and the connection closed — when it would take the queue past the byte limit
    /// (a message larger than the limit on its own is accepted into an empty queue). Throws
    /// ``WebSocketError/connectionClosed`` once closing.
    func send(frames: [String]) throws(WebSocketError) {
        try enqueue(frames.map(Self.textItem))
    }

    /// Queues a websocket ping; the peer's pong is reported to the sink.
    func sendPing() throws(WebSocketError) {
        try enqueue([.ping])
    }

    private static func textItem(_ text: String) -> Outgoing {
        var frame = [UInt8]()
        frame.reserveCapacity(prefix + text.utf8.count)
        frame.append(contentsOf: repeatElement(0, count: prefix))
        frame.append(contentsOf: text.utf8)
        return .text(frame)
    }

    private enum EnqueueOutcome {
        case queued(kick: Bool)
        case refused
        case overflowed(limit: Int)
    }

    private func enqueue(_ items: [Outgoing]) throws(WebSocketError) {
        let bytes = items.reduce(0) { $0 + $1.byteCount }
        let outcome: EnqueueOutcome = lock.withLock {
            if ended || closeRequest != nil { return .refused }
            if let limit = limits?.maximumQueuedBytes, queued > 0, queued + bytes > limit {
                outgoing.removeAll()
                outgoingHead = 0
                queued = 0
                closeRequest = (Self.policyViolationClose, "client too slow")
                return .overflowed(limit: limit)
            }
            outgoing.append(contentsOf: items)
            queued += bytes
            if writeRequested { return .queued(kick: false) }
            writeRequested = true
            return .queued(kick: true)
        }
        switch outcome {
        case .queued(let kick):
            if kick { requestWritable() }
        case .refused:
            throw .connectionClosed
        case .overflowed(let limit):
            let description = "client too slow: more than \(limit) bytes queued"
            end(.failed(description))
            loop.schedule { [self] in closeSlowClient(description) }
            throw .connectionClosed
        }
    }

    /// Sends the queued frames, then a close frame with `code` and `reason`.
    func close(code: UInt16 = WebSocketSession.normalClose, reason: String = "") {
        let kick: Bool = lock.withLock {
            if ended || closeRequest != nil { return false }
            closeRequest = (code, reason)
            if writeRequested { return false }
            writeRequested = true
            return true
        }
        if kick { requestWritable() }
    }

    private func requestWritable() {
        let scheduled = loop.schedule { [self] in
            if let wsi { outputPending(wsi) }
        }
        if !scheduled { end(.failed("the websocket service stopped")) }
    }

    // MARK: Service thread

    /// Binds the session to its libwebsockets connection (service thread).
    func attach(_ wsi: OpaquePointer) {
        self.wsi = wsi
        let pending = lock.withLock { writeRequested }
        if pending { outputPending(wsi) }
    }

    /// Output became pending after a quiet spell: asks for a writable callback and starts
    /// watching for a stall.
    private func outputPending(_ wsi: OpaquePointer) {
        lws_callback_on_writable(wsi)
        lastProgress = .now
        watchForStall(wsi)
    }

    private func watchForStall(_ wsi: OpaquePointer) {
        guard let limits, !timerArmed, !awaitingCloseAcknowledgement else { return }
        timerArmed = true
        OutgoingLimits.armTimer(wsi, after: limits.stalledWriteTimeout)
    }

    /// The close frame is on its way: drop the socket unless the peer answers in time.
    private func awaitCloseAcknowledgement(_ wsi: OpaquePointer) {
        guard let limits else { return }
        awaitingCloseAcknowledgement = true
        timerArmed = true
        OutgoingLimits.armTimer(wsi, after: limits.closeAcknowledgementWait)
    }

    /// The queue passed the byte limit: the session already ended and its queue is gone; the
    /// close frame goes out if the socket still takes it, and the socket is dropped shortly.
    private func closeSlowClient(_ description: String) {
        loop.logger.log(.error, "closing \(peer): \(description)")
        guard let wsi else { return }
        setCloseReason(wsi, code: Self.policyViolationClose, reason: "client too slow")
        awaitCloseAcknowledgement(wsi)
        lws_callback_on_writable(wsi)
    }

    /// Handles the connection's timer (service thread): drops the socket when the peer did
    /// not answer the close frame in time, or when pending output made no progress for the
    /// stall timeout; otherwise keeps watching while output is pending.
    func timerFired() -> Int32 {
        guard let wsi, let limits else { return 0 }
        timerArmed = false
        if awaitingCloseAcknowledgement {
            OutgoingLimits.drop(wsi)
            return 0
        }
        let pending = lock.withLock { writeRequested } || lws_partial_buffered(wsi) != 0
        guard pending else { return 0 }
        let waited = lastProgress.duration(to: .now)
        if waited >= limits.stalledWriteTimeout {
            loop.logger.log(.error, "dropping \(peer): no write went through for \(limits.stalledWriteTimeout)")
            end(.failed("the peer accepted no data for \(limits.stalledWriteTimeout)"))
            OutgoingLimits.drop(wsi)
            return 0
        }
        timerArmed = true
        OutgoingLimits.armTimer(wsi, after: limits.stalledWriteTimeout - waited)
        return 0
    }

    private enum WriteStep {
        case item(Outgoing, more: Bool)
        case close(code: UInt16, reason: String)
        case idle
    }

    /// Handles a writable callback: writes one queued frame, or the close frame (service thread).
    func writable() -> Int32 {
        guard let wsi else { return -1 }
        let step: WriteStep = lock.withLock {
            if outgoingHead < outgoing.count {
                let item = outgoing[outgoingHead]
                outgoingHead += 1
                queued -= item.byteCount
                if outgoingHead == outgoing.count {
                    outgoing.removeAll(keepingCapacity: true)
                    outgoingHead = 0
                } else if outgoingHead >= 1024 {
                    outgoing.removeFirst(outgoingHead)
                    outgoingHead = 0
                }
                let more = outgoingHead < outgoing.count || closeRequest != nil
                if !more { writeRequested = false }
                return .item(item, more: more)
            }
            if let closeRequest { return .close(code: closeRequest.code, reason: closeRequest.reason) }
            writeRequested = false
            return .idle
        }
        switch step {
        case .idle:
            return 0
        case .item(let item, let more):
            if write(item, to: wsi) != 0 { return -1 }
            lastProgress = .now
            if more { lws_callback_on_writable(wsi) }
            if more || lws_partial_buffered(wsi) != 0 { watchForStall(wsi) }
            return 0
        case .close(let code, let reason):
            setCloseReason(wsi, code: code, reason: reason)
            awaitCloseAcknowledgement(wsi)
            return -1
        }
    }

    private func write(_ item: Outgoing, to wsi: OpaquePointer) -> Int32 {
        switch item {
        case .text(var frame):
            let length = frame.count - Self.prefix
            let written = frame.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                return lws_write(wsi, base + Self.prefix, length, LWS_WRITE_TEXT)
            }
            return written < Int32(clamping: length) ? -1 : 0
        case .ping:
            // libwebsockets does not report an empty pong to the callback, so the ping
            // carries a payload for the peer to echo.
            var frame = [UInt8](repeating: 0, count: Self.prefix) + Self.pingPayload
            let written = frame.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                return lws_write(wsi, base + Self.prefix, Self.pingPayload.count, LWS_WRITE_PING)
            }
            return written < Int32(Self.pingPayload.count) ? -1 : 0
        }
    }

    private func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: String) {
        var bytes = Array(reason.utf8.prefix(123))
        bytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), buffer.baseAddress, buffer.count)
        }
    }

    /// Handles received bytes; reports a message once its final fragment arrived (service thread).
    ///
    /// A frame is refused as soon as its header announces more than the limit: what was
    /// already gathered, this piece and the rest of the frame still to come
    /// (`lws_remaining_packet_payload`) are counted, so an oversized frame is never buffered.
    func receive(_ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let wsi else { return -1 }
        let announced = Int(clamping: UInt(bitPattern: lws_remaining_packet_payload(wsi)))
        let room = maximumMessageBytes - receiveBuffer.count - max(length, 0)
        if room < 0 || announced > room {
            setCloseReason(wsi, code: Self.messageTooBigClose, reason: "message too big")
            end(.failed("a message exceeded \(maximumMessageBytes) bytes"))
            awaitCloseAcknowledgement(wsi)
            return -1
        }
        if let input, length > 0 {
            receiveBuffer.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        if lws_is_final_fragment(wsi) != 0 {
            let text = String(decoding: receiveBuffer, as: UTF8.self)
            receiveBuffer.removeAll(keepingCapacity: receiveBuffer.count <= 1 << 20)
            sink.message(text)
        }
        return 0
    }

    /// Reports a pong (service thread).
    func receivedPong() {
        sink.pong()
    }

    /// Notes that the peer sent a close frame (service thread).
    func peerInitiatedClose() {
        peerClosed = true
    }

    /// The connection is gone (service thread).
    func connectionClosed() {
        let closedLocally = lock.withLock { closeRequest != nil }
        wsi = nil
        if closedLocally {
            end(.closedLocally)
        } else if peerClosed {
            end(.closedByPeer)
        } else {
            end(.failed("the connection dropped without a close handshake"))
        }
    }

    /// Ends the session with `reason` unless it already ended.
    func end(_ reason: TransportCloseReason) {
        let first: Bool = lock.withLock {
            if ended { return false }
            ended = true
            outgoing.removeAll()
            outgoingHead = 0
            queued = 0
            return true
        }
        if first { sink.closed(reason) }
    }
}
