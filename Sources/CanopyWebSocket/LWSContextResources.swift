import CWebSockets
import Foundation

/// C memory that must outlive a libwebsockets context: strings referenced by the creation
/// info, the protocol table and the idle policy. Released by the service loop after the
/// context is destroyed.
final class LWSContextResources: @unchecked Sendable {
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var protocolTable: UnsafeMutablePointer<lws_protocols>?
    private var idlePolicy: UnsafeMutablePointer<lws_retry_bo_t>?

    /// Receive buffer size given to libwebsockets per connection.
    static let receiveBufferSize = 65536

    /// A C copy of `string` that lives as long as these resources (nil stays nil).
    func cString(_ string: String?) -> UnsafePointer<CChar>? {
        guard let string, let copy = strdup(string) else { return nil }
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// The protocol table: one protocol named `name` handled by ``canopyLWSCallback``, then
    /// the terminating empty entry.
    func protocols(named name: String) -> UnsafePointer<lws_protocols> {
        if let protocolTable { return UnsafePointer(protocolTable) }
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        table.initialize(repeating: lws_protocols(), count: 2)
        table[0].name = cString(name)
        table[0].callback = canopyLWSCallback
        table[0].per_session_data_size = 0
        table[0].rx_buffer_size = Self.receiveBufferSize
        protocolTable = table
        return UnsafePointer(table)
    }

    /// An idle policy: ping after `pingSeconds` without traffic, hang up after `hangupSeconds`.
    func idlePolicy(pingSeconds: UInt16, hangupSeconds: UInt16) -> UnsafePointer<lws_retry_bo_t> {
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.initialize(to: lws_retry_bo_t())
        policy.pointee.secs_since_valid_ping = pingSeconds
        policy.pointee.secs_since_valid_hangup = hangupSeconds
        idlePolicy?.deallocate()
        idlePolicy = policy
        return UnsafePointer(policy)
    }

    /// Frees everything (after the context is gone).
    func release() {
        for string in strings { free(string) }
        strings.removeAll()
        protocolTable?.deinitialize(count: 2)
        protocolTable?.deallocate()
        protocolTable = nil
        idlePolicy?.deallocate()
        idlePolicy = nil
    }
}
