import CWebSockets
import CanopyWire
import Foundation

/// The service-thread side of a ``WebSocketListener``: accepts websocket upgrades on any
/// path and hands plain HTTP requests to the ``HTTPHandler``, all on one port.
final class WebSocketListenerCore: LWSCallbackHandler, @unchecked Sendable {
    let configuration: WebSocketListenerConfiguration
    let loop: LWSServiceLoop
    private let limits: OutgoingLimits
    private let httpHandler: any HTTPHandler
    private let connectionContinuation: AsyncStream<any ServerConnection>.Continuation
    /// The port bound once the context exists.
    let boundPort = OneShot<Int>()

    private let lock = NSLock()
    private var accepting = true  // guarded by `lock`

    // Service thread only.
    private var sessions: [OpaquePointer: WebSocketServerConnection] = [:]
    private var exchanges: [OpaquePointer: HTTPExchange] = [:]

    init(
        configuration: WebSocketListenerConfiguration,
        httpHandler: any HTTPHandler,
        connectionContinuation: AsyncStream<any ServerConnection>.Continuation
    ) {
        self.configuration = configuration
        self.httpHandler = httpHandler
        self.connectionContinuation = connectionContinuation
        limits = OutgoingLimits(configuration)
        loop = LWSServiceLoop(name: "canopy-ws-listener", logger: configuration.logger)
    }

    /// Creates the context and binds the port.
    func start() async throws(WebSocketError) {
        let configuration = configuration
        try await loop.start(handler: self, resources: LWSContextResources()) { [self] user, resources in
            var info = lws_context_creation_info()
            info.port = Int32(clamping: configuration.port)
            if var host = configuration.host, host != "0.0.0.0", host != "::" {
                if host == "localhost" { host = "127.0.0.1" }
                info.iface = resources.cString(host)
                // An IPv4 address binds an IPv4 socket; libwebsockets would otherwise open a
                // dual-stack IPv6 socket on every interface.
                if !host.contains(":") { info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
            }
            info.protocols = resources.protocols(named: "canopy")
            info.user = user
            info.vhost_name = resources.cString("default")
            info.server_string = resources.cString("canopy")
            info.max_http_header_data = 16384
            let keepAliveSeconds = configuration.httpKeepAliveTimeout.components.seconds
            info.keepalive_timeout = Int32(clamping: max(keepAliveSeconds, 1))
            info.options |= UInt64(LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND)
            if let tls = configuration.tls {
                info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
                info.ssl_cert_filepath = resources.cString(tls.certificateFile)
                info.ssl_private_key_filepath = resources.cString(tls.privateKeyFile)
                info.alpn = resources.cString("http/1.1")
            }
            if let keepalive = configuration.keepalive {
                info.retry_and_idle_policy = resources.idlePolicy(
                    pingSeconds: keepalive.pingInterval, hangupSeconds: keepalive.hangupInterval)
            }
            guard let context = LWSTLSGate.shared.createContext(&info) else { return nil }
            let vhost = lws_get_vhost_by_name(context, "default")
            boundPort.fulfill(vhost.map { Int(lws_get_vhost_listen_port($0)) } ?? configuration.port)
            return context
        }
    }

    /// Stops accepting: new connections are refused, the connection stream finishes, and the
    /// service stops once the last open connection and request are done.
    func stopAccepting() {
        let wasAccepting = lock.withLock {
            let was = accepting
            accepting = false
            return was
        }
        guard wasAccepting else { return }
        connectionContinuation.finish()
        loop.schedule { [self] in stopIfDrained() }
    }

    /// Stops accepting and ends what is open: every websocket gets a "going away" close
    /// frame, every stream is ended; the service stops once they are gone.
    func beginShutdown() {
        stopAccepting()
        loop.schedule { [self] in
            for connection in sessions.values {
                connection.session.close(code: WebSocketSession.goingAwayClose, reason: "server shutting down")
            }
            for exchange in exchanges.values { exchange.cancelHandler() }
            stopIfDrained()
        }
    }

    private var isAccepting: Bool { lock.withLock { accepting } }

    private func stopIfDrained() {
        if !isAccepting, sessions.isEmpty, exchanges.isEmpty { loop.requestStop() }
    }

    func handle(
        _ wsi: OpaquePointer,
        _ reason: lws_callback_reasons,
        _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION, LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return isAccepting ? 0 : -1
        case LWS_CALLBACK_ESTABLISHED:
            return established(wsi)
        case LWS_CALLBACK_RECEIVE:
            return sessions[wsi]?.session.receive(input, length) ?? -1
        case LWS_CALLBACK_RECEIVE_PONG:
            sessions[wsi]?.session.receivedPong()
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return sessions[wsi]?.session.writable() ?? 0
        case LWS_CALLBACK_TIMER:
            if let connection = sessions[wsi] { return connection.session.timerFired() }
            return exchanges[wsi]?.timerFired() ?? 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            sessions[wsi]?.session.peerInitiatedClose()
            return 0
        case LWS_CALLBACK_CLOSED:
            sessions.removeValue(forKey: wsi)?.session.connectionClosed()
            stopIfDrained()
            return 0
        case LWS_CALLBACK_HTTP:
            return httpRequest(wsi, input, length)
        case LWS_CALLBACK_HTTP_BODY:
            guard let exchange = exchanges[wsi] else { return -1 }
            exchange.appendBody(input, length)
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            if let exchange = exchanges[wsi], exchange.completeBody() { dispatch(exchange, wsi) }
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return exchanges[wsi]?.writable() ?? 0
        case LWS_CALLBACK_CLOSED_HTTP:
            exchanges.removeValue(forKey: wsi)?.connectionClosed()
            stopIfDrained()
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func established(_ wsi: OpaquePointer) -> Int32 {
        guard isAccepting else { return -1 }
        let path = LWSRequestHeaders.method(wsi)?.path ?? "/"
        let headers = LWSRequestHeaders.headers(wsi, custom: configuration.customHeaders)
        let host = headers.first { $0.name == "host" }?.value ?? ""
        let request = ConnectionRequest(
            host: host,
            parameters: LWSRequestHeaders.queryItems(wsi).map { ConnectionTarget.Parameter($0.name, $0.value) },
            headers: headers.map { ConnectionTarget.Parameter($0.name, $0.value) },
            remoteAddress: LWSRequestHeaders.remoteAddress(wsi))
        let connection = WebSocketServerConnection(
            request: request, path: path, loop: loop, maximumMessageBytes: configuration.maximumMessageBytes,
            limits: limits, meter: configuration.trafficMeter)
        if let previous = exchanges.removeValue(forKey: wsi) { previous.connectionClosed() }
        sessions[wsi] = connection
        connection.session.attach(wsi)
        connectionContinuation.yield(connection)
        return 0
    }

    private func httpRequest(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard isAccepting else { return -1 }
        let path =
            input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "/"
        exchanges.removeValue(forKey: wsi)?.connectionClosed()
        let exchange = HTTPExchange(
            wsi: wsi, loop: loop, path: path.isEmpty ? "/" : path, customHeaders: configuration.customHeaders,
            maximumBodyBytes: configuration.maximumRequestBodyBytes, limits: limits)
        exchanges[wsi] = exchange
        if exchange.hasChunkedBody {
            exchange.reject(status: 411, message: "chunked request bodies are not accepted; send Content-Length")
        } else if exchange.announcesOversizedBody {
            exchange.reject(
                status: 413, message: "request body larger than \(configuration.maximumRequestBodyBytes) bytes")
        } else if !exchange.expectsBody {
            dispatch(exchange, wsi)
        }
        return 0
    }

    /// Hands a complete request to the handler. libwebsockets' own timeouts stop here: the
    /// handler may take its time and a stream may stay open indefinitely (a client that went
    /// away is noticed at the next write; one that stops reading is dropped by the
    /// ``OutgoingLimits``).
    private func dispatch(_ exchange: HTTPExchange, _ wsi: OpaquePointer) {
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        exchange.dispatch(to: httpHandler)
    }

    func serviceWillStop() {
        lock.withLock { accepting = false }
        connectionContinuation.finish()
        for connection in sessions.values {
            connection.session.end(.closedLocally)
        }
        sessions.removeAll()
        for exchange in exchanges.values { exchange.connectionClosed() }
        exchanges.removeAll()
    }
}
