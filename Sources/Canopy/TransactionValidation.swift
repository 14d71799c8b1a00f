import Synchronization

/// The first invalid value a transaction's update block produced; the transaction is
/// aborted and its completion reports this error instead of "not committed".
final class TransactionValidation: Sendable {
    private let first = Mutex<DatabaseError?>(nil)

    /// Records `error` unless one was recorded before.
    func record(_ error: DatabaseError) {
        first.withLock { if $0 == nil { $0 = error } }
    }

    /// The recorded error.
    var error: DatabaseError? { first.withLock { $0 } }
}
