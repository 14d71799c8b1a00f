import CanopyTree

/// How a transaction ended (client-design.md §9.6).
public struct TransactionCompletion: Sendable {
    /// Why it failed; `nil` when it committed or the update function aborted.
    public let error: DatabaseError?
    /// Whether the server accepted the transaction's write.
    public let committed: Bool
    /// The committed value (server values resolved locally) when committed; else the last
    /// value the update function was given, or `nil` when a `set` overrode the transaction
    /// before it was sent.
    public let node: Node?

    /// Creates a completion.
    public init(error: DatabaseError?, committed: Bool, node: Node?) {
        self.error = error
        self.committed = committed
        self.node = node
    }
}
