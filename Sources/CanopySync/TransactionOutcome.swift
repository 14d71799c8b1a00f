import CanopyTree

/// What a transaction's update function decides for one run (client-design.md §9).
public enum TransactionOutcome: Sendable {
    /// Write this node (server-value placeholders allowed; the priority is the node's).
    case commit(Node)
    /// Give up: the transaction completes without error and without committing.
    case abort
}
