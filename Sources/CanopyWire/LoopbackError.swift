/// A loopback network refused an operation.
public struct LoopbackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
