import CanopyTree

/// The engine's transactions in creation order, with the path questions of
/// client-design.md §9.2–§9.5: which transactions form one batch, where re-runs start,
/// which transactions a `set` conflicts with.
struct TransactionQueue {
    /// Every live transaction, oldest first.
    private(set) var transactions: [SyncTransaction] = []

    /// Whether no transaction is queued.
    var isEmpty: Bool { transactions.isEmpty }

    /// Appends a new transaction.
    mutating func append(_ transaction: SyncTransaction) {
        transactions.append(transaction)
    }

    /// Drops completed transactions.
    mutating func pruneCompleted() {
        transactions.removeAll { $0.status == .completed }
    }

    /// The transactions at or below `path`, oldest first.
    func transactions(atOrBelow path: Path) -> [SyncTransaction] {
        transactions.filter { path.contains($0.path) }
    }

    /// The rootmost location on the way from the root to `path` (inclusive) that holds a
    /// transaction; `path` itself when none does.
    func rootmostPath(on path: Path) -> Path {
        transactions.map(\.path).filter { $0.contains(path) }.min { $0.count < $1.count } ?? path
    }

    /// The locations holding transactions that no other transaction's location contains:
    /// each is the root of one send batch.
    var batchRoots: [Path] {
        var roots: [Path] = []
        for path in transactions.map(\.path).sorted() {
            if let last = roots.last, last.contains(path) { continue }
            roots.append(path)
        }
        return roots
    }

    /// The transactions a write at `path` conflicts with: at ancestors of `path`, at it and
    /// below it.
    func conflicting(with path: Path) -> [SyncTransaction] {
        transactions.filter { $0.path.contains(path) || path.contains($0.path) }
    }
}
