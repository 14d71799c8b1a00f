import CWebSockets
import Foundation

/// Keeps the creation of a TLS context from breaking client TLS handshakes in flight on other
/// contexts of the process.
///
/// libwebsockets 4.1 initialises its OpenSSL glue again for every context created with TLS,
/// and each time allocates a new process-wide "ex_data" index under which it files the
/// connection of each OpenSSL session; its client certificate-verification callback looks the
/// connection up under the current index. So a TLS context created while a client handshake
/// elsewhere is between session creation and certificate verification makes that handshake
/// fail ("can't get wsi from ssl privdata"). Later libwebsockets releases allocate the index
/// once; this gate makes the two exclusive instead: creating a TLS context waits until no
/// client handshake is in flight, and a client handshake does not start while a TLS context is
/// being created or waits to be. Every wait is bounded by the handshakes' connect timeouts.
///
/// Used on service threads only (they may block; Swift tasks never call it).
final class LWSTLSGate: @unchecked Sendable {
    /// The one gate of the process.
    static let shared = LWSTLSGate()

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var handshakes = 0
    private var creators = 0

    /// Creates a context from `info`; one with TLS (`LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT`)
    /// once no client handshake is in flight.
    func createContext(_ info: inout lws_context_creation_info) -> OpaquePointer? {
        guard info.options & UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) != 0 else {
            return lws_create_context(&info)
        }
        condition.lock()
        creators += 1
        while handshakes > 0 { condition.wait() }
        condition.unlock()
        defer {
            condition.lock()
            creators -= 1
            condition.broadcast()
            condition.unlock()
        }
        return lws_create_context(&info)
    }

    /// Marks a client TLS handshake as started, first waiting while a TLS context is being
    /// created. Balance with ``endHandshake()`` once the handshake succeeded or failed.
    func beginHandshake() {
        condition.lock()
        while creators > 0 { condition.wait() }
        handshakes += 1
        condition.unlock()
    }

    /// Marks a client TLS handshake started with ``beginHandshake()`` as over.
    func endHandshake() {
        condition.lock()
        handshakes -= 1
        condition.broadcast()
        condition.unlock()
    }
}
