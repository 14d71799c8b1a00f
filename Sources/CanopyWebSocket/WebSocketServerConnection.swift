import CanopyWire

/// A websocket a client opened on a ``WebSocketListener``.
///
/// Events: each text message (fragmented frames reassembled), ``CanopyWire/ServerConnectionEvent/pong``
/// for answers to ``sendPing()``, then one ``CanopyWire/ServerConnectionEvent/closed(_:)``.
public final class WebSocketServerConnection: ServerConnection {
    /// The upgrade request: `Host`, the query parameters (`v`, `ns`, `ls`, …), headers, peer.
    public let request: ConnectionRequest
    /// The request path of the upgrade, such as `/.ws`.
    public let path: String
    /// The connection's events; single consumer.
    public let events: AsyncStream<ServerConnectionEvent>
    let session: WebSocketSession
    private let meter: WebSocketTrafficMeter

    init(
        request: ConnectionRequest, path: String, loop: LWSServiceLoop, maximumMessageBytes: Int,
        limits: OutgoingLimits, meter: WebSocketTrafficMeter
    ) {
        self.request = request
        self.path = path
        let (events, continuation) = AsyncStream.makeStream(of: ServerConnectionEvent.self, bufferingPolicy: .unbounded)
        self.events = events
        self.meter = meter
        meter.connectionOpened()
        session = WebSocketSession(
            loop: loop, maximumMessageBytes: maximumMessageBytes, limits: limits,
            peer: "websocket from \(request.remoteAddress ?? "an unknown address") at \(path)",
            sink: WebSocketSessionSink(
                message: { text in
                    meter.received(text)
                    continuation.yield(.frame(text))
                },
                pong: { continuation.yield(.pong) },
                closed: { reason in
                    meter.connectionClosed()
                    continuation.yield(.closed(reason))
                    continuation.finish()
                }))
    }

    /// Bytes of frames queued for the client and not yet handed to the socket. Bounded by
    /// ``WebSocketListenerConfiguration/maximumQueuedBytes``: a client that lets more pile up
    /// is disconnected.
    public var queuedBytes: Int { session.queuedBytes }

    /// Queues one text frame; ignored once closed.
    public func send(_ frame: String) {
        guard (try? session.send(frame)) != nil else { return }
        meter.sent(frame)
    }

    /// Queues the frames of one message; a client too slow to take it is disconnected (see
    /// ``WebSocketListenerConfiguration/maximumQueuedBytes``). Ignored once closed.
    public func send(frames: [String]) {
        guard (try? session.send(frames: frames)) != nil else { return }
        for frame in frames { meter.sent(frame) }
    }

    /// Sends an RFC 6455 ping; a `.pong` event follows while the client is alive.
    public func sendPing() {
        try? session.sendPing()
    }

    /// Sends what is queued, then a normal close frame.
    public func close() {
        session.close()
    }

    /// Closes with a specific status code and reason.
    public func close(code: UInt16, reason: String) {
        session.close(code: code, reason: reason)
    }
}
