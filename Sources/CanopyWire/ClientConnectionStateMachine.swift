/// The client side of one websocket connection as a pure state machine.
///
/// The driver feeds it inputs — transport events, timer firings, messages to send — each
/// with the current time, and performs the ``ClientConnectionAction``s it returns, in order.
/// It does no I/O and reads no clock, so every transition is testable.
///
/// Behaviour (protocol.md §2.2–§2.5):
/// - after the transport opens it waits up to ``Configuration/handshakeTimeout`` for the
///   hello, sending nothing; messages sent meanwhile are queued and flushed right after
///   ``ClientConnectionAction/handshakeCompleted(_:)``;
/// - outgoing messages are split into frames (``FrameSplitter``), incoming frames are
///   reassembled (``FrameAssembler``) and decoded;
/// - after ``Configuration/keepaliveInterval`` without a frame in either direction it sends
///   the keepalive frame `"0"`;
/// - a reset (`r`) ends the connection as ``ClientDisconnectReason/redirected(host:)``, a
///   shutdown (`s`) as ``ClientDisconnectReason/shutdown(reason:)``; undecodable frames, or
///   data before the hello, as ``ClientDisconnectReason/protocolError(_:)``.
///
/// A state machine serves one connection; make a new one for every attempt. Request numbers
/// belong to the engine, which keeps them increasing across connections.
public struct ClientConnectionStateMachine: Sendable {
    /// Limits and timers.
    public struct Configuration: Sendable, Equatable {
        /// Frames longer than this (UTF-16 code units) are split.
        public var maxFrameSize: Int
        /// The largest chunk count sent or accepted.
        public var maxFrameCount: Int
        /// The largest incoming message accepted, in UTF-8 bytes.
        public var maxIncomingMessageBytes: Int
        /// Quiet time after which a keepalive is sent.
        public var keepaliveInterval: Duration
        /// How long to wait for the hello after the transport opened.
        public var handshakeTimeout: Duration

        /// The protocol's defaults: 16384-unit frames, 9999 chunks, 256 MiB messages, 45 s
        /// keepalive, 30 s handshake timeout.
        public init(
            maxFrameSize: Int = WireProtocol.maxFrameSize, maxFrameCount: Int = WireProtocol.maxFrameCount,
            maxIncomingMessageBytes: Int = 256 * 1024 * 1024,
            keepaliveInterval: Duration = WireProtocol.keepaliveInterval,
            handshakeTimeout: Duration = WireProtocol.handshakeTimeout
        ) {
            self.maxFrameSize = maxFrameSize
            self.maxFrameCount = maxFrameCount
            self.maxIncomingMessageBytes = maxIncomingMessageBytes
            self.keepaliveInterval = keepaliveInterval
            self.handshakeTimeout = handshakeTimeout
        }
    }

    /// Where the connection stands.
    public enum State: Sendable, Equatable {
        /// The transport has not opened yet.
        case connecting
        /// The transport is open; waiting for the hello.
        case awaitingHello
        /// The hello arrived.
        case connected(Handshake)
        /// The connection is over.
        case closed(ClientDisconnectReason)
    }

    /// The configuration.
    public let configuration: Configuration
    /// The current state.
    public private(set) var state: State = .connecting
    private let splitter: FrameSplitter
    private var assembler: FrameAssembler
    private var queued: [WireMessage] = []
    private var lastActivity: ContinuousClock.Instant?

    /// Creates a state machine for a new connection attempt.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        splitter = FrameSplitter(maxFrameSize: configuration.maxFrameSize, maxFrameCount: configuration.maxFrameCount)
        assembler = FrameAssembler(
            maxFrameCount: configuration.maxFrameCount, maxMessageBytes: configuration.maxIncomingMessageBytes)
    }

    /// The handshake, once connected.
    public var handshake: Handshake? {
        if case .connected(let hello) = state { return hello }
        return nil
    }

    /// The transport opened: start waiting for the hello.
    public mutating func transportOpened(at now: ContinuousClock.Instant) -> [ClientConnectionAction] {
        guard case .connecting = state else { return [] }
        state = .awaitingHello
        lastActivity = now
        return [.scheduleTimer(.handshake, at: now + configuration.handshakeTimeout)]
    }

    /// A text frame arrived.
    public mutating func frameReceived(_ frame: String, at now: ContinuousClock.Instant) -> [ClientConnectionAction] {
        if case .closed = state { return [] }
        lastActivity = now
        let text: String?
        do throws(WireError) {
            text = try assembler.receive(frame)
        } catch {
            return end(.protocolError(error))
        }
        guard let text else { return [] }
        let message: WireMessage
        do throws(WireError) {
            message = try WireMessage(text: text)
        } catch {
            return end(.protocolError(error))
        }
        return received(message, at: now)
    }

    /// Sends a message (normally a request). Before the hello it is queued; after the
    /// connection ended it is dropped (the engine re-sends on the next connection).
    public mutating func send(_ message: WireMessage, at now: ContinuousClock.Instant) -> [ClientConnectionAction] {
        switch state {
        case .connecting, .awaitingHello:
            queued.append(message)
            return []
        case .connected:
            lastActivity = now
            return [.sendFrames(splitter.frames(for: message))]
        case .closed:
            return []
        }
    }

    /// A timer the state machine scheduled fired.
    public mutating func timerFired(_ timer: ClientConnectionTimer, at now: ContinuousClock.Instant)
        -> [ClientConnectionAction]
    {
        switch (timer, state) {
        case (.handshake, .connecting), (.handshake, .awaitingHello):
            return end(.handshakeTimedOut)
        case (.keepalive, .connected):
            let due = (lastActivity ?? now) + configuration.keepaliveInterval
            guard now >= due else { return [.scheduleTimer(.keepalive, at: due)] }
            lastActivity = now
            return [
                .sendFrames([WireProtocol.keepaliveFrame]),
                .scheduleTimer(.keepalive, at: now + configuration.keepaliveInterval),
            ]
        default:
            return []
        }
    }

    /// The engine wants the connection closed.
    public mutating func close(at now: ContinuousClock.Instant) -> [ClientConnectionAction] {
        end(.closedByClient)
    }

    /// The transport reported that it closed.
    public mutating func transportClosed(_ reason: TransportCloseReason, at now: ContinuousClock.Instant)
        -> [ClientConnectionAction]
    {
        if case .closed = state { return [] }
        state = .closed(.transportClosed(reason))
        queued = []
        return [.connectionEnded(.transportClosed(reason))]
    }

    private mutating func received(_ message: WireMessage, at now: ContinuousClock.Instant) -> [ClientConnectionAction]
    {
        switch message {
        case .control(let control):
            return received(control, at: now)
        case .response(let number, let response):
            guard case .connected = state else { return end(.protocolError(beforeHello("a response"))) }
            return [.deliverResponse(number: number, response)]
        case .push(let push):
            guard case .connected = state else { return end(.protocolError(beforeHello("a push"))) }
            return [.deliverPush(push)]
        case .request(let number, _):
            return end(
                .protocolError(WireError(.unexpectedMessage, "the server sent a request", requestNumber: number)))
        }
    }

    private mutating func received(_ control: ControlMessage, at now: ContinuousClock.Instant)
        -> [ClientConnectionAction]
    {
        switch control {
        case .hello(let hello):
            guard case .awaitingHello = state else { return [] }
            state = .connected(hello)
            var actions: [ClientConnectionAction] = [.handshakeCompleted(hello)]
            let frames = queued.flatMap { splitter.frames(for: $0) }
            queued = []
            if !frames.isEmpty { actions.append(.sendFrames(frames)) }
            actions.append(.scheduleTimer(.keepalive, at: now + configuration.keepaliveInterval))
            return actions
        case .reset(let host):
            return end(.redirected(host: host))
        case .shutdown(let reason):
            return end(.shutdown(reason: reason))
        case .error(let message):
            return [.logServerError(message)]
        case .ping, .pong, .switchAcknowledgement, .endOfTransmission, .unknown:
            return []
        }
    }

    private func beforeHello(_ what: String) -> WireError {
        WireError(.unexpectedMessage, "the server sent \(what) before the hello")
    }

    private mutating func end(_ reason: ClientDisconnectReason) -> [ClientConnectionAction] {
        if case .closed = state { return [] }
        state = .closed(reason)
        queued = []
        return [.closeTransport, .connectionEnded(reason)]
    }
}
