import CanopyTree

/// One transaction in the engine's queue (client-design.md §9).
final class SyncTransaction {
    /// Where it stands.
    enum Status {
        /// Ready to be sent (or re-run).
        case run
        /// Its put is with the connection.
        case sent
        /// Its put is with the connection, but a `set` overrode it: a `datastale` answer
        /// aborts it.
        case sentNeedsAbort
        /// To be aborted with ``SyncTransaction/abortReason`` at the next re-run.
        case needsAbort
        /// Finished; to be pruned.
        case completed
    }

    /// The creation order.
    let order: Int
    /// The location.
    let path: Path
    /// The update function.
    let update: @Sendable (Node) -> TransactionOutcome
    /// Called once when the transaction ends.
    let completion: (@Sendable (TransactionCompletion) -> Void)?
    /// Whether runs raise local events.
    let appliesLocally: Bool
    /// The value listener that keeps server data flowing while the transaction lives.
    let watcher: ObserverRegistration

    var status: Status = .run
    /// The number of puts sent.
    var retryCount = 0
    /// Why it must abort (``Status/needsAbort``, ``Status/sentNeedsAbort``).
    var abortReason: DatabaseError?
    /// The write id of the current run's write.
    var writeId: Int
    /// The value the last run was given.
    var input: Node
    /// The last run's result as returned (placeholders unresolved).
    var rawOutput: Node
    /// The last run's result with placeholders resolved.
    var resolvedOutput: Node

    init(
        order: Int, path: Path, update: @escaping @Sendable (Node) -> TransactionOutcome,
        completion: (@Sendable (TransactionCompletion) -> Void)?, appliesLocally: Bool, watcher: ObserverRegistration,
        writeId: Int, input: Node, rawOutput: Node, resolvedOutput: Node
    ) {
        self.order = order
        self.path = path
        self.update = update
        self.completion = completion
        self.appliesLocally = appliesLocally
        self.watcher = watcher
        self.writeId = writeId
        self.input = input
        self.rawOutput = rawOutput
        self.resolvedOutput = resolvedOutput
    }
}
