/// Where the engine keeps its unacknowledged user writes, so that they outlive the engine
/// (client-design.md §7.4): the seam through which persistence plugs in.
///
/// The engine records each `set` and `update` before sending it, removes it when the server
/// answers (either way) or when writes are purged, and at start-up re-applies and re-sends
/// every write the store holds, in id order, continuing its write ids after the largest.
/// Transactions are never stored (§9.7). Calls come from the engine actor, one at a time.
public protocol WriteQueueStore: Sendable {
    /// The stored writes, in id order.
    func loadWrites() -> [StoredWrite]
    /// Records a new write.
    func saveWrite(_ write: StoredWrite)
    /// Forgets the write with `writeId`.
    func removeWrite(withId writeId: Int)
    /// Forgets every write.
    func removeAllWrites()
}
