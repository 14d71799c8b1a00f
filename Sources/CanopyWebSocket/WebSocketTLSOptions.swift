/// How a websocket client verifies a `wss://` server.
public struct WebSocketTLSOptions: Sendable, Equatable {
    /// A PEM file of extra certificate authorities to trust, in addition to the system store.
    public var customCAFile: String?
    /// Accept self-signed server certificates and skip the host-name check. For development
    /// servers only.
    public var allowsSelfSigned: Bool

    /// Strict verification against the system certificate store.
    public init(customCAFile: String? = nil, allowsSelfSigned: Bool = false) {
        self.customCAFile = customCAFile
        self.allowsSelfSigned = allowsSelfSigned
    }
}

/// Idle-connection probing: after `pingInterval` seconds without proof that traffic flows
/// both ways, libwebsockets sends an RFC 6455 ping; after `hangupInterval` seconds without
/// it, the connection is closed (reported as an abnormal close).
public struct WebSocketKeepalive: Sendable, Equatable {
    /// Seconds of silence before a ping is sent.
    public var pingInterval: UInt16
    /// Seconds without valid traffic before the connection is dropped.
    public var hangupInterval: UInt16

    /// Creates a keepalive policy; `hangupInterval` should exceed `pingInterval`.
    public init(pingInterval: UInt16, hangupInterval: UInt16) {
        self.pingInterval = pingInterval
        self.hangupInterval = hangupInterval
    }

    /// The server default of protocol.md §2.7: ping after 30 s, drop after 100 s.
    public static let server = WebSocketKeepalive(pingInterval: 30, hangupInterval: 100)
}
