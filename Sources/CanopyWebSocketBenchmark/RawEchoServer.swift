import CWebSockets
import Foundation

/// The baseline of the round-trip measurement: a websocket echo written directly against
/// libwebsockets. Each message is echoed from the service thread's own callbacks — no Swift
/// concurrency, actor, queue or thread hop between receiving it and sending it back.
enum RawEchoServer {
    /// Messages being received or waiting to be echoed, per connection. Touched only by
    /// ``rawEchoCallback`` on the one service thread.
    nonisolated(unsafe) fileprivate static var partial: [OpaquePointer: [UInt8]] = [:]
    nonisolated(unsafe) fileprivate static var waiting: [OpaquePointer: [[UInt8]]] = [:]

    /// Starts the echo on an ephemeral port of 127.0.0.1, served by a thread of its own for
    /// the rest of the process; returns the port, or nil when libwebsockets cannot start it.
    static func start() -> Int? {
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(strdup("raw-echo"))
        protocols[0].callback = rawEchoCallback
        protocols[0].rx_buffer_size = 65536
        var info = lws_context_creation_info()
        info.port = 0
        info.iface = UnsafePointer(strdup("127.0.0.1"))
        info.protocols = UnsafePointer(protocols)
        info.vhost_name = UnsafePointer(strdup("default"))
        info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) | UInt64(LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND)
        guard let context = lws_create_context(&info), let vhost = lws_get_vhost_by_name(context, "default") else {
            return nil
        }
        let port = Int(lws_get_vhost_listen_port(vhost))
        nonisolated(unsafe) let serviced = context
        let thread = Thread {
            while lws_service(serviced, 0) >= 0 {}
        }
        thread.name = "raw-echo"
        thread.start()
        return port
    }
}

private func rawEchoCallback(
    _ wsi: OpaquePointer?,
    _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi else { return lws_callback_http_dummy(wsi, reason, user, input, length) }
    switch reason {
    case LWS_CALLBACK_RECEIVE:
        var message = RawEchoServer.partial.removeValue(forKey: wsi) ?? []
        if let input, length > 0 { message.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
        if lws_is_final_fragment(wsi) != 0 {
            RawEchoServer.waiting[wsi, default: []].append(message)
            lws_callback_on_writable(wsi)
        } else {
            RawEchoServer.partial[wsi] = message
        }
        return 0
    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard var queue = RawEchoServer.waiting[wsi], !queue.isEmpty else { return 0 }
        let message = queue.removeFirst()
        RawEchoServer.waiting[wsi] = queue
        var frame = [UInt8](repeating: 0, count: Int(canopy_lws_pre)) + message
        let written = frame.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return lws_write(wsi, base + Int(canopy_lws_pre), message.count, LWS_WRITE_TEXT)
        }
        if written < Int32(message.count) { return -1 }
        if !queue.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    case LWS_CALLBACK_CLOSED:
        RawEchoServer.partial[wsi] = nil
        RawEchoServer.waiting[wsi] = nil
        return 0
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}
