import CWebSockets

/// Facts about the libwebsockets library this build links.
public enum WebSocketLibrary {
    /// The linked libwebsockets version string, such as `4.1.6-v4.1.6`.
    public static var version: String { String(cString: lws_get_library_version()) }
}
