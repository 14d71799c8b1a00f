import CanopyWire

/// A libwebsockets server on one port: websocket upgrades on any path (official clients use
/// `/.ws?v=5&ns=…`) become ``WebSocketServerConnection``s, and every plain HTTP request —
/// REST calls and Server-Sent Events streams — goes to an ``HTTPHandler``.
///
/// Keep the listener while it serves: ``close()`` stops accepting (open connections stay
/// until they end), ``stop(gracePeriod:)`` ends everything and frees the port.
public final class WebSocketListener: ServerListener {
    /// Connections as clients open them; finishes when the listener stops accepting.
    public let connections: AsyncStream<any ServerConnection>
    /// The bound TCP port (the chosen one when the configuration asked for port 0).
    public let port: Int
    /// The settings the listener runs with.
    public var configuration: WebSocketListenerConfiguration { core.configuration }
    private let core: WebSocketListenerCore

    /// The listener's websocket connections and message bytes so far
    /// (``WebSocketListenerConfiguration/trafficMeter``).
    public var traffic: WebSocketTraffic { core.configuration.trafficMeter.reading }

    /// How many service passes the listener's thread has made (see ``LWSServiceLoop``).
    var servicePasses: Int { core.loop.servicePasses }

    private init(core: WebSocketListenerCore, connections: AsyncStream<any ServerConnection>, port: Int) {
        self.core = core
        self.connections = connections
        self.port = port
    }

    /// Binds the port and starts serving. Throws ``WebSocketError/contextCreationFailed(log:)``
    /// when the port is taken, the address is not local, or the TLS files are unusable.
    public static func start(
        configuration: WebSocketListenerConfiguration = WebSocketListenerConfiguration(),
        httpHandler: any HTTPHandler = NotFoundHTTPHandler()
    ) async throws(WebSocketError) -> WebSocketListener {
        let (connections, continuation) = AsyncStream.makeStream(
            of: (any ServerConnection).self, bufferingPolicy: .unbounded)
        let core = WebSocketListenerCore(
            configuration: configuration, httpHandler: httpHandler, connectionContinuation: continuation)
        try await core.start()
        let port = await core.boundPort.value
        return WebSocketListener(core: core, connections: connections, port: port)
    }

    deinit {
        core.stopAccepting()
    }

    /// Stops accepting connections and requests; those already open continue until they end,
    /// then the service thread exits and the port is released.
    public func close() async {
        core.stopAccepting()
    }

    /// Shuts down: stops accepting, sends every websocket a "going away" close frame, ends
    /// every stream, waits up to `gracePeriod` for them to finish, then drops whatever is left,
    /// releases the port and returns once the service thread has exited.
    public func stop(gracePeriod: Duration = .seconds(2)) async {
        core.beginShutdown()
        let loop = core.loop
        let deadline = Task {
            try? await Task.sleep(for: gracePeriod)
            loop.requestStop()
        }
        await loop.waitUntilFinished()
        deadline.cancel()
    }
}
