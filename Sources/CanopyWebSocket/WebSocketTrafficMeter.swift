import Synchronization

/// A reading of a ``WebSocketTrafficMeter``.
public struct WebSocketTraffic: Sendable, Equatable {
    /// Websocket connections open now.
    public var openConnections: Int
    /// Websocket connections accepted since the meter was created.
    public var connectionsOpened: Int
    /// Bytes of text messages received (UTF-8 payload, without framing).
    public var bytesReceived: Int
    /// Bytes of text messages queued for sending (UTF-8 payload, without framing).
    public var bytesSent: Int
}

/// Counts a listener's websocket connections and message bytes as they pass, for metrics.
///
/// Give one to ``WebSocketListenerConfiguration/trafficMeter`` and read ``reading`` from any
/// thread; counting is a few relaxed atomic additions per message and adds no step to the
/// path of a message.
public final class WebSocketTrafficMeter: Sendable {
    private let open = Atomic<Int>(0)
    private let opened = Atomic<Int>(0)
    private let received = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)

    /// Creates a meter at zero.
    public init() {}

    /// The counts now.
    public var reading: WebSocketTraffic {
        WebSocketTraffic(
            openConnections: open.load(ordering: .relaxed), connectionsOpened: opened.load(ordering: .relaxed),
            bytesReceived: received.load(ordering: .relaxed), bytesSent: sent.load(ordering: .relaxed))
    }

    func connectionOpened() {
        open.add(1, ordering: .relaxed)
        opened.add(1, ordering: .relaxed)
    }

    func connectionClosed() {
        open.subtract(1, ordering: .relaxed)
    }

    func received(_ text: String) {
        received.add(text.utf8.count, ordering: .relaxed)
    }

    func sent(_ text: String) {
        sent.add(text.utf8.count, ordering: .relaxed)
    }
}
