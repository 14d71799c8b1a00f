/// A failure reported by a storage backend.
///
/// SQLite failures carry SQLite's extended result code and message; file failures carry the
/// `errno` value; malformed stored data is ``Kind-swift.enum/corrupt``.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// SQLite returned an error; ``StorageError/code`` is its extended result code.
        case sqlite
        /// A file operation failed; ``StorageError/code`` is the `errno` value.
        case io
        /// Stored data could not be decoded.
        case corrupt
        /// A path that a store cannot write, such as one with `.priority` before its last key.
        case invalidPath
        /// A value that a store cannot keep, such as a non-finite number.
        case invalidValue
        /// An argument outside what the API accepts, such as a bad table name.
        case invalidArgument
        /// The store or database was already closed.
        case closed
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// SQLite's extended result code for ``Kind-swift.enum/sqlite``, `errno` for
    /// ``Kind-swift.enum/io``, otherwise 0.
    public let code: Int32
    /// A human-readable explanation.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, code: Int32 = 0, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The error for an operation on a closed store or database.
    public static let closed = StorageError(kind: .closed, message: "the store is closed")

    /// Text naming the kind, the code and the message.
    public var description: String {
        switch kind {
        case .sqlite: return "SQLite error \(code): \(message)"
        case .io: return "I/O error \(code): \(message)"
        case .corrupt: return "corrupt storage: \(message)"
        case .invalidPath: return "invalid path: \(message)"
        case .invalidValue: return "invalid value: \(message)"
        case .invalidArgument: return "invalid argument: \(message)"
        case .closed: return message
        }
    }
}
