import CanopyTree
import CanopyWire

/// An error the client engine reports for a write, a listen, a transaction, an onDisconnect
/// operation or a one-shot read.
///
/// ``code`` mirrors the protocol's status strings (protocol.md §3.2) plus the client-local
/// reasons (`maxretry`, `set`, `disconnect`, `write_canceled`, offline reads, invalid input).
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// The server's rules refused the operation (`permission_denied`).
        case permissionDenied
        /// A compare-and-set found different data (`datastale`).
        case dataStale
        /// A transaction met conflicting data too many times (`maxretry`).
        case maxRetries
        /// A `set` or `update` overrode a transaction (`set`).
        case overriddenBySet
        /// The connection was lost while the operation was on the wire (`disconnect`).
        case disconnected
        /// The credential has expired (`expired_token`).
        case expiredToken
        /// The credential is malformed or cannot be verified (`invalid_token`).
        case invalidToken
        /// The write was dropped by `purgeOutstandingWrites` (`write_canceled`).
        case writeCanceled
        /// The service is temporarily unavailable (`unavailable`).
        case unavailable
        /// The data of a listen or read exceeds the server's limit (`too_big`).
        case tooBig
        /// The write exceeds the server's limit (`write_too_big`).
        case writeTooBig
        /// The server reported a generic failure (`failure`).
        case operationFailed
        /// The server refused the data or path as invalid (`invalid_data`).
        case invalidData
        /// The client refused the call's arguments before sending anything (bad path, bad
        /// value, a write to `.info`, …).
        case invalidArgument
        /// A one-shot read found neither a connection nor cached data.
        case offline
        /// A status this library does not know; the raw status string.
        case other(String)

        /// The code for a protocol status string.
        public init(status: StatusCode) {
            switch status.rawValue {
            case "permission_denied": self = .permissionDenied
            case "datastale": self = .dataStale
            case "maxretry", "maxretries": self = .maxRetries
            case "set", "overriddenbyset": self = .overriddenBySet
            case "disconnect", "disconnected": self = .disconnected
            case "expired_token": self = .expiredToken
            case "invalid_token": self = .invalidToken
            case "write_canceled": self = .writeCanceled
            case "unavailable": self = .unavailable
            case "too_big": self = .tooBig
            case "write_too_big": self = .writeTooBig
            case "failure": self = .operationFailed
            case "invalid_data": self = .invalidData
            default: self = .other(status.rawValue)
            }
        }

        /// The status string as the protocol (or the reference clients, for client-local
        /// reasons) spells it.
        public var status: String {
            switch self {
            case .permissionDenied: return "permission_denied"
            case .dataStale: return "datastale"
            case .maxRetries: return "maxretry"
            case .overriddenBySet: return "set"
            case .disconnected: return "disconnect"
            case .expiredToken: return "expired_token"
            case .invalidToken: return "invalid_token"
            case .writeCanceled: return "write_canceled"
            case .unavailable: return "unavailable"
            case .tooBig: return "too_big"
            case .writeTooBig: return "write_too_big"
            case .operationFailed: return "failure"
            case .invalidData: return "invalid_data"
            case .invalidArgument: return "invalid_argument"
            case .offline: return "offline"
            case .other(let status): return status
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// A human-readable explanation.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String? = nil) {
        self.code = code
        self.message = message ?? DatabaseError.defaultMessage(for: code)
    }

    /// The error for a non-`ok` response: its status and, when present, its reason.
    public init(status: StatusCode, reason: String? = nil) {
        self.init(Code(status: status), reason)
    }

    /// The error for a client-side validation failure.
    public init(_ error: TreeError) {
        self.init(.invalidArgument, error.message)
    }

    /// `code: message`.
    public var description: String { "\(code.status): \(message)" }

    private static func defaultMessage(for code: Code) -> String {
        switch code {
        case .permissionDenied: return "Permission denied"
        case .dataStale: return "The transaction needs to be run again with current data"
        case .maxRetries: return "The transaction had too many retries"
        case .overriddenBySet: return "The transaction was overridden by a subsequent set"
        case .disconnected: return "The operation had to be aborted due to a network disconnect"
        case .expiredToken: return "The supplied auth token has expired"
        case .invalidToken: return "The supplied auth token was invalid"
        case .writeCanceled: return "The write was canceled by the user"
        case .unavailable: return "The service is unavailable"
        case .tooBig: return "The data requested exceeds the maximum size that can be accessed with a single request"
        case .writeTooBig: return "The write exceeds the maximum size of a single write"
        case .operationFailed: return "The server indicated that this operation failed"
        case .invalidData: return "The data is invalid"
        case .invalidArgument: return "Invalid argument"
        case .offline: return "The client is offline"
        case .other(let status): return status.uppercased()
        }
    }
}
