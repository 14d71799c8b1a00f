import CWebSockets
import Foundation

/// The service-thread side of one ``HTTPClientRequest``: a context of its own with one
/// connection, the request body written one piece per writable callback, and the response
/// reported to the request's event stream. Properties are touched only on the service thread
/// (the continuation is thread-safe).
final class HTTPClientExchange: LWSCallbackHandler, @unchecked Sendable {
    private let request: HTTPClientRequest
    private let continuation: AsyncThrowingStream<HTTPClientEvent, any Error>.Continuation
    private let loop: LWSServiceLoop
    /// Where response bytes are read (with the `LWS_PRE` prefix libwebsockets needs in front).
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// Where each piece of the request body is staged for `lws_write` (same prefix).
    private let writeBuffer: UnsafeMutableRawBufferPointer
    // Service thread only.
    private var bodyOffset = 0
    private var response: (status: Int, contentLength: Int?)?
    private var ended = false
    /// Whether a TLS handshake counted by ``LWSTLSGate`` is in flight.
    private var handshaking = false

    private static let prefix = Int(canopy_lws_pre)
    private static let pieceSize = 32 * 1024
    private static let readSize = 64 * 1024
    private static let protocolName = "canopy-http"

    /// Prepares the exchange; nothing happens until ``run()``.
    init(request: HTTPClientRequest, continuation: AsyncThrowingStream<HTTPClientEvent, any Error>.Continuation) {
        self.request = request
        self.continuation = continuation
        loop = LWSServiceLoop(name: "canopy-http-client \(request.hostHeader)", logger: request.logger)
        readBuffer = .allocate(byteCount: Self.prefix + Self.readSize, alignment: 16)
        writeBuffer = .allocate(byteCount: Self.prefix + Self.pieceSize, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        writeBuffer.deallocate()
    }

    /// Starts the service loop, which opens the connection and sends the request.
    func run() async {
        let request = request
        do {
            try await loop.start(handler: self, resources: LWSContextResources()) { [self] user, resources in
                var info = lws_context_creation_info()
                info.port = CONTEXT_PORT_NO_LISTEN
                info.protocols = resources.protocols(named: Self.protocolName)
                info.user = user
                info.fd_limit_per_thread = 16
                let idle = UInt32(clamping: max(1, request.idleTimeoutSeconds))
                info.timeout_secs = idle
                info.connect_timeout_secs = min(idle, 30)
                if request.isSecure {
                    info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
                    info.client_ssl_ca_filepath = resources.cString(request.tls.customCAFile)
                }
                guard let context = LWSTLSGate.shared.createContext(&info) else {
                    end(.contextCreationFailed(log: loop.recentLogLines()))
                    return nil
                }
                connect(context: context, resources: resources)
                return context
            }
        } catch {
            end(error)
        }
    }

    /// The consumer dropped the events: stop, closing the connection if open (any thread).
    func abandon() {
        loop.requestStop()
    }

    private func connect(context: OpaquePointer, resources: LWSContextResources) {
        var info = lws_client_connect_info()
        info.context = context
        info.address = resources.cString(request.connectAddress)
        info.port = Int32(clamping: request.port)
        info.path = resources.cString(request.target)
        info.host = resources.cString(request.hostHeader)
        info.method = resources.cString(request.method)
        info.local_protocol_name = resources.cString(Self.protocolName)
        info.alpn = resources.cString("http/1.1")
        var flags = LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue
        if request.isSecure {
            flags |= LCCSCF_USE_SSL.rawValue
            if request.tls.allowsSelfSigned {
                flags |= LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
            }
        }
        info.ssl_connection = Int32(bitPattern: flags)
        if request.isSecure {
            LWSTLSGate.shared.beginHandshake()
            handshaking = true
        }
        if lws_client_connect_via_info(&info) == nil {
            end(
                .connectionFailed(
                    reason: "could not start connecting to \(request.hostHeader)", log: loop.recentLogLines()))
        }
    }

    /// Ends the event stream once — successfully when `error` is nil — and stops the loop.
    private func end(_ error: WebSocketError?) {
        handshakeEnded()
        guard !ended else { return }
        ended = true
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        loop.requestStop()
    }

    /// Ends the TLS handshake counted by ``LWSTLSGate``, if one is.
    private func handshakeEnded() {
        guard handshaking else { return }
        handshaking = false
        LWSTLSGate.shared.endHandshake()
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
        case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE:
            return writeBody(wsi)
        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            handshakeEnded()
            let status = Int(lws_http_client_http_response(wsi))
            let contentLength = LWSRequestHeaders.copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            response = (status, contentLength)
            continuation.yield(.response(status: status, contentLength: contentLength))
            armIdleTimer(wsi)
            return 0
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            guard let base = readBuffer.baseAddress else { return -1 }
            var cursor: UnsafeMutablePointer<CChar>? = (base + Self.prefix).assumingMemoryBound(to: CChar.self)
            var available = Int32(Self.readSize)
            return lws_http_client_read(wsi, &cursor, &available) < 0 ? -1 : 0
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            if let input, length > 0 {
                continuation.yield(.data(Array(UnsafeRawBufferPointer(start: input, count: length))))
            }
            armIdleTimer(wsi)
            return 0
        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            end(nil)
            return 0
        case LWS_CALLBACK_TIMER:
            end(
                .connectionFailed(
                    reason: "\(request.hostHeader) sent nothing for \(request.idleTimeoutSeconds) seconds", log: []))
            return -1
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            end(.connectionFailed(reason: text.isEmpty ? "connection error" : text, log: loop.recentLogLines()))
            return 0
        case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
            if let response, response.contentLength == nil {
                // A body without a length (a Server-Sent Events stream) ends with the connection.
                end(nil)
            } else {
                end(
                    .connectionFailed(
                        reason: "\(request.hostHeader) closed the connection before the response was complete",
                        log: loop.recentLogLines()))
            }
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// Writes `Content-Length` and the extra headers into the request; with a body, asks for
    /// writable callbacks to send it. `input` is a `char **` cursor and `length` the space left.
    private func appendHeaders(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let input else { return -1 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return -1 }
        var headers = request.headers
        if let body = request.body { headers.append(HTTPHeader("content-length", String(body.count))) }
        guard LWSHeaderWriter.append(headers, wsi, cursor: cursor, end: start + length) else { return -1 }
        if let body = request.body, !body.isEmpty {
            lws_client_http_body_pending(wsi, 1)
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// Writes the next piece of the request body, reporting progress.
    private func writeBody(_ wsi: OpaquePointer) -> Int32 {
        guard let body = request.body, bodyOffset < body.count, let base = writeBuffer.baseAddress else {
            lws_client_http_body_pending(wsi, 0)
            return 0
        }
        let end = min(bodyOffset + Self.pieceSize, body.count)
        let count = end - bodyOffset
        body.withUnsafeBytes { bytes in
            UnsafeMutableRawBufferPointer(start: base + Self.prefix, count: count)
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[bodyOffset..<end]))
        }
        let written = lws_write(
            wsi, (base + Self.prefix).assumingMemoryBound(to: UInt8.self), count, LWS_WRITE_HTTP)
        if written < Int32(clamping: count) { return -1 }
        bodyOffset = end
        continuation.yield(.sent(bodyOffset, of: body.count))
        if bodyOffset < body.count {
            lws_callback_on_writable(wsi)
        } else {
            lws_client_http_body_pending(wsi, 0)
        }
        armIdleTimer(wsi)
        return 0
    }

    /// (Re)starts the silence timer: ``LWS_CALLBACK_TIMER`` fails the request when it runs out.
    private func armIdleTimer(_ wsi: OpaquePointer) {
        lws_set_timer_usecs(wsi, lws_usec_t(max(1, request.idleTimeoutSeconds)) * lws_usec_t(1_000_000))
    }

    func serviceWillStop() {
        end(.connectionFailed(reason: "the request to \(request.hostHeader) was abandoned", log: []))
    }
}
