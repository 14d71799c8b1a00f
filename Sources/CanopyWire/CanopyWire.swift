/// The Firebase Realtime Database websocket protocol, version 5.
public enum WireProtocol {
    /// The protocol version sent as `v` in the connection URL.
    public static let version = "5"
}
