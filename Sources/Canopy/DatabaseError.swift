import CanopySync
import CanopyTree

/// Why a database operation failed: a status reported by the server (`permission_denied`,
/// `datastale`, …), a local outcome (`write_canceled`, `maxretry`, `disconnect`, offline
/// reads) or invalid input found before anything was queued
/// (`DatabaseError.Code.invalidArgument`, with a message naming the offending key, path or
/// value).
public typealias DatabaseError = CanopySync.DatabaseError

extension DatabaseError {
    /// The numeric code FirebaseDatabase reports for this failure in its `NSError`s (domain
    /// `com.firebase`): `permission_denied` = 1, `unavailable` = 2, `write_canceled` = 3,
    /// anything else 9999.
    public var errorCode: Int {
        switch code {
        case .permissionDenied: return 1
        case .unavailable: return 2
        case .writeCanceled: return 3
        default: return 9999
        }
    }

    /// An `Code.invalidArgument` error with `message`.
    static func invalidArgument(_ message: String) -> DatabaseError {
        DatabaseError(.invalidArgument, message)
    }

    /// The error for a validation failure: itself for a `DatabaseError`, an
    /// `Code.invalidArgument` error with the message of a `TreeError` or `QueryError`.
    init(validating error: any Error) {
        switch error {
        case let error as DatabaseError: self = error
        case let error as TreeError: self.init(error)
        case let error as QueryError: self = .invalidArgument(error.description)
        default: self = .invalidArgument(String(describing: error))
        }
    }
}
