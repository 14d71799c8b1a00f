import CWebSockets
import CanopyWire
import Foundation

/// The service-thread side of one client connection: creates the client context, opens the
/// connection, and routes its callbacks to the ``WebSocketSession``.
final class WebSocketClientConnector: LWSCallbackHandler, @unchecked Sendable {
    private let endpoint: WebSocketEndpoint
    private let headers: [HTTPHeader]
    private let configuration: WebSocketClientConfiguration
    private let onOpen: @Sendable () -> Void
    /// Resolved once: connected, or why not.
    private let outcome = OneShot<Result<Void, WebSocketError>>()
    /// The connection's session.
    let session: WebSocketSession
    private let loop: LWSServiceLoop
    // Service thread only.
    private var established = false
    /// Whether a TLS handshake counted by ``LWSTLSGate`` is in flight.
    private var handshaking = false
    private let abandonLock = NSLock()
    private var abandoned = false  // guarded by `abandonLock`

    /// Prepares a connection to `endpoint`; nothing happens until ``connect()``.
    init(
        endpoint: WebSocketEndpoint,
        headers: [HTTPHeader],
        configuration: WebSocketClientConfiguration,
        sink: WebSocketSessionSink,
        onOpen: @escaping @Sendable () -> Void
    ) {
        self.endpoint = endpoint
        self.headers = headers
        self.configuration = configuration
        self.onOpen = onOpen
        let loop = LWSServiceLoop(name: "canopy-ws-client \(endpoint.hostHeader)", logger: configuration.logger)
        self.loop = loop
        self.session = WebSocketSession(
            loop: loop, maximumMessageBytes: configuration.maximumMessageBytes, sink: sink)
    }

    /// Starts the service loop and waits until the websocket is open or has failed.
    func connect() async throws(WebSocketError) {
        let endpoint = endpoint
        let configuration = configuration
        do {
            try await loop.start(handler: self, resources: LWSContextResources()) { [self] user, resources in
                var info = lws_context_creation_info()
                info.port = CONTEXT_PORT_NO_LISTEN
                info.protocols = resources.protocols(named: "canopy")
                info.user = user
                info.fd_limit_per_thread = 64
                info.timeout_secs = UInt32(clamping: max(1, configuration.connectTimeoutSeconds))
                info.connect_timeout_secs = UInt32(clamping: max(1, configuration.connectTimeoutSeconds))
                if endpoint.isSecure {
                    info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
                    info.client_ssl_ca_filepath = resources.cString(configuration.tls.customCAFile)
                }
                guard let context = LWSTLSGate.shared.createContext(&info) else { return nil }
                openConnection(context: context, resources: resources)
                return context
            }
        } catch {
            session.end(.failed(error.description))
            throw error
        }
        if case .failure(let error) = await outcome.value {
            await loop.stop()
            throw error
        }
    }

    /// Abandons the connection: closes it if open, stops connecting otherwise.
    func shutDown() {
        session.close(code: WebSocketSession.goingAwayClose)
        stopIfConnecting()
    }

    /// Stops a connection attempt that has not completed yet.
    func stopIfConnecting() {
        guard outcome.current == nil else { return }
        abandonLock.withLock { abandoned = true }
        loop.requestStop()
    }

    private func openConnection(context: OpaquePointer, resources: LWSContextResources) {
        var connect = lws_client_connect_info()
        connect.context = context
        connect.address = resources.cString(endpoint.host)
        connect.port = Int32(endpoint.port)
        connect.path = resources.cString(endpoint.requestTarget)
        connect.host = resources.cString(endpoint.hostHeader)
        connect.local_protocol_name = resources.cString("canopy")
        if endpoint.isSecure {
            var flags = LCCSCF_USE_SSL.rawValue
            if configuration.tls.allowsSelfSigned {
                flags |= LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
            }
            connect.ssl_connection = Int32(bitPattern: flags)
        }
        if let keepalive = configuration.keepalive {
            connect.retry_and_idle_policy = resources.idlePolicy(
                pingSeconds: keepalive.pingInterval, hangupSeconds: keepalive.hangupInterval)
        }
        if endpoint.isSecure {
            LWSTLSGate.shared.beginHandshake()
            handshaking = true
        }
        if lws_client_connect_via_info(&connect) == nil {
            fail(reason: "could not start connecting to \(endpoint.hostHeader)")
        }
    }

    /// Ends the TLS handshake counted by ``LWSTLSGate``, if one is (service thread).
    private func handshakeEnded() {
        guard handshaking else { return }
        handshaking = false
        LWSTLSGate.shared.endHandshake()
    }

    private func fail(reason: String) {
        handshakeEnded()
        let error = WebSocketError.connectionFailed(reason: reason, log: loop.recentLogLines())
        outcome.fulfill(.failure(error))
        session.end(abandonLock.withLock { abandoned } ? .closedLocally : .failed(error.description))
        loop.requestStop()
    }

    func handle(
        _ wsi: OpaquePointer,
        _ reason: lws_callback_reasons,
        _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(wsi, input, length)
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            handshakeEnded()
            established = true
            session.attach(wsi)
            onOpen()
            outcome.fulfill(.success(()))
            return 0
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return session.receive(input, length)
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            session.receivedPong()
            return 0
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return session.writable()
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            session.peerInitiatedClose()
            return 0
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            fail(reason: text.isEmpty ? "connection error" : text)
            return 0
        case LWS_CALLBACK_CLIENT_CLOSED:
            if established { session.connectionClosed() } else { fail(reason: "closed during the handshake") }
            loop.requestStop()
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// Writes the extra headers into the upgrade request. `input` is a `char **` cursor and
    /// `length` the space left.
    private func appendHeaders(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let input, !headers.isEmpty else { return 0 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return 0 }
        return LWSHeaderWriter.append(headers, wsi, cursor: cursor, end: start + length) ? 0 : -1
    }

    func serviceWillStop() {
        handshakeEnded()
        if outcome.current == nil { fail(reason: "the connection was shut down") }
        if established { session.connectionClosed() }
    }
}
