import CanopySync

/// A change in the state of one write, as published by ``Database/writeStatuses()``.
public struct DatabaseWriteStatus: Sendable {
    /// Where a write stands.
    public enum State: Sendable {
        /// Applied locally; waiting for the server.
        case pending
        /// The server accepted it.
        case acknowledged
        /// The server refused it, or it was purged; it has been reverted locally.
        case failed(DatabaseError)
    }

    /// Identifies the write; increasing in the order writes were made.
    public let writeID: Int
    /// The location written (for `updateChildValues`, the location the update was made at).
    public let ref: DatabaseReference
    /// The new state.
    public let state: State

    init(_ status: WriteStatus, database: Database) {
        self.writeID = status.writeId
        self.ref = DatabaseReference(database: database, path: status.path)
        switch status.state {
        case .pending: self.state = .pending
        case .acknowledged: self.state = .acknowledged
        case .failed(let error): self.state = .failed(error)
        }
    }
}
