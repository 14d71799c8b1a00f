/// The server side of one websocket connection as a pure state machine.
///
/// The driver feeds it inputs with the current time and performs the returned
/// ``ServerConnectionAction``s in order. It does no I/O and reads no clock.
///
/// Behaviour (protocol.md §2.2–§2.7, §3.1):
/// - on open it sends the hello the driver supplies, at once;
/// - incoming frames are reassembled (``FrameAssembler``; `"0"` keepalives ignored) and
///   decoded; requests go to the engine, control pings are answered with a pong directly;
/// - a request that cannot be decoded but whose number is readable, or whose action is
///   unknown, is rejected with an error response instead of closing the connection;
/// - outgoing messages are split into frames at ``Configuration/maxFrameSize`` (never a `"0"`
///   frame, never more than 9999 chunks);
/// - after ``Configuration/probeInterval`` without a client frame it asks for a transport
///   ping, and after ``Configuration/idleTimeout`` without a frame or pong it closes the
///   connection as ``ServerDisconnectReason/idleTimeout``.
public struct ServerConnectionStateMachine: Sendable {
    /// Limits and timers.
    public struct Configuration: Sendable, Equatable {
        /// Frames longer than this (UTF-16 code units) are split.
        public var maxFrameSize: Int
        /// The largest chunk count sent or accepted.
        public var maxFrameCount: Int
        /// The largest incoming message accepted, in UTF-8 bytes.
        public var maxIncomingMessageBytes: Int
        /// Quiet time after which a transport ping is sent.
        public var probeInterval: Duration
        /// Silence (no frame, no pong) after which the connection is considered dead.
        public var idleTimeout: Duration

        /// Canopy's defaults: 16384-unit frames, 9999 chunks, 256 MiB messages, a probe after
        /// 30 s of silence, dead after 120 s.
        public init(
            maxFrameSize: Int = WireProtocol.maxFrameSize, maxFrameCount: Int = WireProtocol.maxFrameCount,
            maxIncomingMessageBytes: Int = 256 * 1024 * 1024, probeInterval: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(120)
        ) {
            self.maxFrameSize = maxFrameSize
            self.maxFrameCount = maxFrameCount
            self.maxIncomingMessageBytes = maxIncomingMessageBytes
            self.probeInterval = probeInterval
            self.idleTimeout = idleTimeout
        }
    }

    /// Where the connection stands.
    public enum State: Sendable, Equatable {
        /// The driver has not reported the connection open yet.
        case idle
        /// The hello was sent; requests are flowing.
        case open(Handshake)
        /// The connection is over.
        case closed(ServerDisconnectReason)
    }

    /// The configuration.
    public let configuration: Configuration
    /// The current state.
    public private(set) var state: State = .idle
    private let splitter: FrameSplitter
    private var assembler: FrameAssembler
    private var lastActivity: ContinuousClock.Instant?

    /// Creates a state machine for a newly accepted connection.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        splitter = FrameSplitter(maxFrameSize: configuration.maxFrameSize, maxFrameCount: configuration.maxFrameCount)
        assembler = FrameAssembler(
            maxFrameCount: configuration.maxFrameCount, maxMessageBytes: configuration.maxIncomingMessageBytes)
    }

    /// The connection is open: send `hello` (server time, host, fresh session id) and start
    /// the idle timers.
    public mutating func connectionOpened(hello: Handshake, at now: ContinuousClock.Instant) -> [ServerConnectionAction]
    {
        guard case .idle = state else { return [] }
        state = .open(hello)
        lastActivity = now
        return [
            .sendFrames(splitter.frames(for: .control(.hello(hello)))),
            .scheduleTimer(.probe, at: now + configuration.probeInterval),
            .scheduleTimer(.idle, at: now + configuration.idleTimeout),
        ]
    }

    /// A text frame arrived from the client.
    public mutating func frameReceived(_ frame: String, at now: ContinuousClock.Instant) -> [ServerConnectionAction] {
        if case .closed = state { return [] }
        lastActivity = now
        let text: String?
        do throws(WireError) {
            text = try assembler.receive(frame)
        } catch {
            return [.ignoredMessage(error)]
        }
        guard let text else { return [] }
        let message: WireMessage
        do throws(WireError) {
            message = try WireMessage(text: text)
        } catch {
            if let number = error.requestNumber {
                return [.rejectRequest(number: number, .rejecting(error))]
            }
            return [.ignoredMessage(error)]
        }
        switch message {
        case .request(let number, .unknown(let action, _)):
            return [.rejectRequest(number: number, .failure(.failure, "Unknown action \"\(action)\""))]
        case .request(let number, let request):
            return [.deliverRequest(number: number, request)]
        case .control(.ping):
            return [.sendFrames(splitter.frames(for: .control(.pong)))]
        case .control:
            return []
        case .response(let number, _):
            return [.ignoredMessage(WireError(.unexpectedMessage, "the client sent a response", requestNumber: number))]
        case .push(let push):
            return [.ignoredMessage(WireError(.unexpectedMessage, "the client sent a \"\(push.action)\" push"))]
        }
    }

    /// A transport-level pong arrived (the connection is alive).
    public mutating func pongReceived(at now: ContinuousClock.Instant) -> [ServerConnectionAction] {
        if case .closed = state { return [] }
        lastActivity = now
        return []
    }

    /// Sends a message (a response, a push, or a control message) to the client. Dropped
    /// before ``connectionOpened(hello:at:)`` (the hello must come first) and once the
    /// connection ended.
    public mutating func send(_ message: WireMessage, at now: ContinuousClock.Instant) -> [ServerConnectionAction] {
        guard case .open = state else { return [] }
        return [.sendFrames(splitter.frames(for: message))]
    }

    /// A timer the state machine scheduled fired.
    public mutating func timerFired(_ timer: ServerConnectionTimer, at now: ContinuousClock.Instant)
        -> [ServerConnectionAction]
    {
        guard case .open = state else { return [] }
        let last = lastActivity ?? now
        switch timer {
        case .probe:
            let due = last + configuration.probeInterval
            guard now >= due else { return [.scheduleTimer(.probe, at: due)] }
            return [.sendTransportPing, .scheduleTimer(.probe, at: now + configuration.probeInterval)]
        case .idle:
            let due = last + configuration.idleTimeout
            guard now >= due else { return [.scheduleTimer(.idle, at: due)] }
            return end(.idleTimeout)
        }
    }

    /// The server closes the connection (to refuse a namespace permanently, send a shutdown
    /// control message first).
    public mutating func close(at now: ContinuousClock.Instant) -> [ServerConnectionAction] {
        end(.closedByServer)
    }

    /// The transport reported that it closed.
    public mutating func transportClosed(_ reason: TransportCloseReason, at now: ContinuousClock.Instant)
        -> [ServerConnectionAction]
    {
        if case .closed = state { return [] }
        state = .closed(.transportClosed(reason))
        return [.connectionEnded(.transportClosed(reason))]
    }

    private mutating func end(_ reason: ServerDisconnectReason) -> [ServerConnectionAction] {
        if case .closed = state { return [] }
        state = .closed(reason)
        return [.closeTransport, .connectionEnded(reason)]
    }
}
