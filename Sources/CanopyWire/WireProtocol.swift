/// Constants of the Firebase Realtime Database websocket protocol, version 5.
///
/// The values come from protocol.md §2: the endpoint path and version parameter, the frame
/// splitting limits and the client timers.
public enum WireProtocol {
    /// The protocol version sent as `v` in the connection URL and in the hello.
    public static let version = "5"

    /// The websocket endpoint path every client opens.
    public static let webSocketPath = "/.ws"

    /// The largest frame, in UTF-16 code units, a sender emits before splitting a message.
    public static let maxFrameSize = 16384

    /// The largest chunk count a sender may announce (iOS only recognises 1–4 digit counts).
    public static let maxFrameCount = 9999

    /// The longest count frame a receiver recognises, in characters.
    public static let maxCountFrameLength = 6

    /// The one-character frame a client sends after this long without traffic.
    public static let keepaliveFrame = "0"

    /// How long a client waits without sending or receiving before sending a keepalive.
    public static let keepaliveInterval: Duration = .seconds(45)

    /// How long a client waits for the hello after the transport opened.
    public static let handshakeTimeout: Duration = .seconds(30)
}
