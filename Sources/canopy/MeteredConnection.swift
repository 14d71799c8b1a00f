import CanopyWire

/// A websocket connection that counts its frames' bytes and its lifetime in
/// ``ServerMetrics`` and otherwise passes everything through to the connection it wraps.
final class MeteredConnection: ServerConnection {
    /// The upgrade request of the wrapped connection.
    let request: ConnectionRequest
    /// The wrapped connection's events, counted as they pass.
    let events: AsyncStream<ServerConnectionEvent>
    private let connection: any ServerConnection
    private let metrics: ServerMetrics

    /// Wraps `connection`; counts it as open until its events end.
    init(_ connection: any ServerConnection, metrics: ServerMetrics) {
        self.connection = connection
        self.metrics = metrics
        self.request = connection.request
        metrics.update {
            $0.openWebSockets += 1
            $0.connectionsOpened += 1
        }
        let (events, continuation) = AsyncStream.makeStream(of: ServerConnectionEvent.self)
        self.events = events
        let source = connection.events
        let forwarding = Task {
            for await event in source {
                if case .frame(let text) = event { metrics.update { $0.bytesReceived += text.utf8.count } }
                continuation.yield(event)
            }
            continuation.finish()
            metrics.update { $0.openWebSockets -= 1 }
        }
        continuation.onTermination = { _ in forwarding.cancel() }
    }

    func send(_ frame: String) {
        metrics.update { $0.bytesSent += frame.utf8.count }
        connection.send(frame)
    }

    func send(frames: [String]) {
        metrics.update { $0.bytesSent += frames.reduce(0) { $0 + $1.utf8.count } }
        connection.send(frames: frames)
    }

    func sendPing() {
        connection.sendPing()
    }

    func close() {
        connection.close()
    }
}

/// A listener whose connections are ``MeteredConnection``s.
struct MeteredListener: ServerListener {
    /// The wrapped listener's connections, each wrapped.
    let connections: AsyncStream<any ServerConnection>
    private let listener: any ServerListener

    /// Wraps `listener`'s connections, counting them in `metrics`.
    init(_ listener: any ServerListener, metrics: ServerMetrics) {
        self.listener = listener
        let source = listener.connections
        connections = AsyncStream { continuation in
            let forwarding = Task {
                for await connection in source {
                    continuation.yield(MeteredConnection(connection, metrics: metrics))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarding.cancel() }
        }
    }

    func close() async {
        await listener.close()
    }
}
