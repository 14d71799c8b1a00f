import CWebSockets

/// How long a server connection may keep output waiting for a client, and how much of it.
///
/// A client that stops reading (a stalled app, a dead network path) must not make the server
/// hold an unbounded queue, nor a socket forever:
/// - a message that would take what is queued and not yet written past
///   ``maximumQueuedBytes`` closes the connection at once (a message larger than the limit on
///   its own is accepted into an empty queue);
/// - output that waits ``stalledWriteTimeout`` without a single write going through drops the
///   connection;
/// - after the server's close frame, the peer has ``closeAcknowledgementWait`` to answer
///   before the socket is dropped (libwebsockets alone would wait 5 s).
///
/// Applied on the service thread (timers) and by the locked queues (the byte limit).
struct OutgoingLimits: Sendable {
    /// Bytes queued for the client, not yet handed to the socket, past which the connection
    /// is closed.
    var maximumQueuedBytes: Int
    /// Time output may wait without progress before the connection is dropped.
    var stalledWriteTimeout: Duration
    /// Time allowed for the peer's answer to the server's close frame.
    var closeAcknowledgementWait: Duration

    /// The limits a listener's configuration asks for.
    init(_ configuration: WebSocketListenerConfiguration) {
        maximumQueuedBytes = configuration.maximumQueuedBytes
        stalledWriteTimeout = configuration.stalledWriteTimeout
        closeAcknowledgementWait = .seconds(1)
    }

    /// Schedules the connection's timer callback (`LWS_CALLBACK_TIMER`) `delay` from now,
    /// replacing any earlier one (service thread).
    static func armTimer(_ wsi: OpaquePointer, after delay: Duration) {
        let (seconds, attoseconds) = max(delay, .milliseconds(1)).components
        lws_set_timer_usecs(wsi, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }

    /// Drops the connection without any further protocol exchange: libwebsockets closes the
    /// socket on its next service pass and reports the close as usual (service thread).
    static func drop(_ wsi: OpaquePointer) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }
}
