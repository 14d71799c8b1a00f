import Foundation

/// How serious a log line from the websocket layer is.
public enum WebSocketLogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    /// Detail useful when diagnosing connection set-up (libwebsockets "notice" lines).
    case debug
    /// Something unexpected that the library recovered from.
    case warning
    /// A failure: a connection, handshake or TLS error.
    case error

    /// Orders levels from least to most serious.
    public static func < (lhs: WebSocketLogLevel, rhs: WebSocketLogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The level's name, such as `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// Where the websocket layer writes its log lines, including the lines libwebsockets itself
/// emits on the service thread (which carry the real reason for TLS and connection failures).
///
/// A logger is a value: a minimum level and a closure. The closure is called on the
/// libwebsockets service thread and must not block.
public struct WebSocketLogger: Sendable {
    /// Lines below this level are dropped before reaching ``emit``.
    public var minimumLevel: WebSocketLogLevel
    /// Receives each line at or above ``minimumLevel``.
    public var emit: @Sendable (WebSocketLogLevel, String) -> Void

    /// Creates a logger from a minimum level and a closure that records lines.
    public init(
        minimumLevel: WebSocketLogLevel = .warning,
        emit: @escaping @Sendable (WebSocketLogLevel, String) -> Void
    ) {
        self.minimumLevel = minimumLevel
        self.emit = emit
    }

    /// A logger that drops every line.
    public static let silent = WebSocketLogger(minimumLevel: .error) { _, _ in }

    /// A logger that writes warnings and errors to standard error.
    public static let standardError = WebSocketLogger(minimumLevel: .warning) { level, line in
        FileHandle.standardError.write(Data("[canopy websocket \(level)] \(line)\n".utf8))
    }

    /// Passes `line` to ``emit`` when `level` is at or above ``minimumLevel``.
    public func log(_ level: WebSocketLogLevel, _ line: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        emit(level, line())
    }
}
