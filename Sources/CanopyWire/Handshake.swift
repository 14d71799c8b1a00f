/// The hello a server sends as the first message of every connection (protocol.md §2.4).
///
/// On the wire: `{"t":"c","d":{"t":"h","d":{"ts":…,"v":"5","h":"host","s":"session"}}}`.
public struct Handshake: Sendable, Hashable {
    /// The server's time in integer milliseconds since the Unix epoch (`ts`).
    public var timestamp: Int64
    /// The protocol version (`v`), `"5"`.
    public var version: String
    /// The host (with port if not the scheme default) clients should use from now on (`h`).
    public var host: String
    /// An opaque session id the client sends back as `ls` on its next connection (`s`).
    public var sessionID: String

    /// Creates a hello.
    public init(timestamp: Int64, version: String = WireProtocol.version, host: String, sessionID: String) {
        self.timestamp = timestamp
        self.version = version
        self.host = host
        self.sessionID = sessionID
    }
}
