/// A malformed frame or message: what was wrong, in words a person can act on.
///
/// Decoding never crashes on bad input; every problem surfaces as a `WireError`. When the
/// problem is inside a request whose number could be read, ``requestNumber`` carries it so a
/// server can still answer that request with an error status instead of dropping the
/// connection.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a wire error.
    public enum Kind: Sendable, Equatable {
        /// The text is not valid JSON.
        case invalidJSON
        /// The JSON does not have the shape of a protocol message: a missing field, a field
        /// of the wrong type, an unknown envelope.
        case malformedMessage
        /// A frame sequence is invalid: a chunk count out of range.
        case malformedFrame
        /// A message, or the frames announced for it, exceed the configured limit.
        case messageTooLarge
        /// A well-formed message that is not valid in the current connection state or
        /// direction (for example a request sent to a client).
        case unexpectedMessage
    }

    /// The category.
    public let kind: Kind
    /// A description of the problem.
    public let message: String
    /// The number `r` of the request the problem was found in, when it could be read.
    public let requestNumber: Int64?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, requestNumber: Int64? = nil) {
        self.kind = kind
        self.message = message
        self.requestNumber = requestNumber
    }

    /// The message, prefixed with the request number when known.
    public var description: String {
        if let requestNumber { return "request \(requestNumber): \(message)" }
        return message
    }
}
