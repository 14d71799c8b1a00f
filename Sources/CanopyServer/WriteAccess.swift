import CanopyTree

/// A write an ``AccessPolicy`` is asked about: one put, one key of a merge, or an
/// onDisconnect registration.
public struct WriteAccess: Sendable {
    /// The location written.
    public let path: Path
    /// Who is writing.
    public let auth: ConnectionAuth
    /// The whole tree before the write (rules' `root`).
    public let root: Node
    /// The whole tree as it would be after the write (rules' `newData` is its node at ``path``).
    public let newRoot: Node
    /// The server time in milliseconds (rules' `now`).
    public let now: Int64

    /// Creates a write description.
    public init(path: Path, auth: ConnectionAuth, root: Node, newRoot: Node, now: Int64) {
        self.path = path
        self.auth = auth
        self.root = root
        self.newRoot = newRoot
        self.now = now
    }
}
