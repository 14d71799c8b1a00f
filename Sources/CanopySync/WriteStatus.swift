import CanopyTree

/// A change in the state of one user write (`set`, `update`, priority change), as published
/// by ``SyncEngine/writeStatuses()``.
public struct WriteStatus: Sendable {
    /// Where a write stands.
    public enum State: Sendable {
        /// Applied locally; waiting for the server.
        case pending
        /// The server accepted it.
        case acknowledged
        /// The server refused it, or it was purged; it has been reverted locally.
        case failed(DatabaseError)
    }

    /// The write id.
    public let writeId: Int
    /// The location written.
    public let path: Path
    /// The new state.
    public let state: State

    /// Creates a status.
    public init(writeId: Int, path: Path, state: State) {
        self.writeId = writeId
        self.path = path
        self.state = state
    }
}
