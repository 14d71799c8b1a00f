/// The identity of one client connection (a session) within a server: the `s` of its hello.
public struct ServerSessionID: Sendable, Hashable, CustomStringConvertible {
    /// The session id text sent to the client in the hello.
    public let value: String

    /// Wraps a session id.
    public init(_ value: String) { self.value = value }

    /// A fresh random session id: 16 lowercase hexadecimal digits.
    public static func random() -> ServerSessionID {
        var generator = SystemRandomNumberGenerator()
        let bits = generator.next() as UInt64
        let hex = String(bits, radix: 16)
        return ServerSessionID(String(repeating: "0", count: 16 - hex.count) + hex)
    }

    /// The session id text.
    public var description: String { value }
}
