import CanopyWire
import Foundation

/// A client websocket over libwebsockets (`ws://` and `wss://`), one connection attempt per
/// instance as ``CanopyWire/ClientTransport`` requires. The connection runs on its own
/// service thread, which ends when the connection closes.
///
/// Events: ``CanopyWire/ClientTransportEvent/opened``, then each text message (fragmented
/// frames reassembled), then one ``CanopyWire/ClientTransportEvent/closed(_:)``.
public final class WebSocketClientTransport: ClientTransport, @unchecked Sendable {
    /// The settings this transport connects with.
    public let configuration: WebSocketClientConfiguration
    /// The transport's events; single consumer.
    public let events: AsyncStream<ClientTransportEvent>
    private let continuation: AsyncStream<ClientTransportEvent>.Continuation
    private let lock = NSLock()
    private var connector: WebSocketClientConnector?  // guarded by `lock`
    private var closeRequested = false  // guarded by `lock`

    /// Creates an unconnected transport.
    public init(configuration: WebSocketClientConfiguration = WebSocketClientConfiguration()) {
        self.configuration = configuration
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    deinit {
        lock.withLock { connector }?.shutDown()
    }

    /// Connects to the database endpoint of `target`. A failure is reported as
    /// `.closed(.failed(reason))`, with libwebsockets' own explanation when it logged one.
    public func connect(to target: ConnectionTarget) async {
        do {
            let endpoint = try WebSocketEndpoint(target: target)
            try await open(endpoint, headers: target.headers.map { HTTPHeader($0.name, $0.value) })
        } catch {
            // Already reported as the `.closed` event.
        }
    }

    /// Connects to `endpoint`, returning once the upgrade handshake completed; throws the
    /// typed reason otherwise (which is also reported as the `.closed` event).
    public func open(_ endpoint: WebSocketEndpoint, headers: [HTTPHeader] = []) async throws(WebSocketError) {
        let continuation = continuation
        let sink = WebSocketSessionSink(
            message: { continuation.yield(.frame($0)) },
            pong: {},
            closed: { reason in
                continuation.yield(.closed(reason))
                continuation.finish()
            })
        let connector = WebSocketClientConnector(
            endpoint: endpoint, headers: configuration.headers + headers, configuration: configuration,
            sink: sink, onOpen: { continuation.yield(.opened) })
        let admitted: Bool = lock.withLock {
            guard self.connector == nil, !closeRequested else { return false }
            self.connector = connector
            return true
        }
        guard admitted else {
            let error = WebSocketError.connectionClosed
            continuation.yield(.closed(.failed(error.description)))
            continuation.finish()
            throw error
        }
        try await connector.connect()
    }

    /// Sends one text frame; ignored unless open.
    public func send(_ frame: String) async {
        try? lock.withLock { connector }?.session.send(frame)
    }

    /// Queues one text frame without suspending; throws ``WebSocketError/connectionClosed``
    /// when the connection is not open.
    public func sendNow(_ frame: String) throws(WebSocketError) {
        guard let connector = lock.withLock({ connector }) else { throw .connectionClosed }
        try connector.session.send(frame)
    }

    /// Sends what is queued, then a close frame; `.closed(.closedLocally)` follows once the
    /// server answers. Abandons a connection attempt in progress.
    public func close() async {
        let current: WebSocketClientConnector? = lock.withLock {
            closeRequested = true
            return connector
        }
        if let current {
            current.session.close()
            current.stopIfConnecting()
        } else {
            continuation.yield(.closed(.closedLocally))
            continuation.finish()
        }
    }
}

/// Makes a fresh ``WebSocketClientTransport`` for each connection attempt.
public struct WebSocketClientTransportFactory: ClientTransportFactory {
    /// The settings every transport gets.
    public var configuration: WebSocketClientConfiguration

    /// Creates a factory.
    public init(configuration: WebSocketClientConfiguration = WebSocketClientConfiguration()) {
        self.configuration = configuration
    }

    /// A new, unconnected websocket transport.
    public func makeTransport() -> any ClientTransport {
        WebSocketClientTransport(configuration: configuration)
    }
}
