import Synchronization

/// A ``WriteQueueStore`` in memory: writes survive an engine (a new engine given the same
/// store re-sends them) but not the process.
public final class MemoryWriteQueueStore: WriteQueueStore {
    private let writes = Mutex<[StoredWrite]>([])

    /// Creates an empty store.
    public init() {}

    /// The stored writes, in id order.
    public func loadWrites() -> [StoredWrite] {
        writes.withLock { $0.sorted { $0.writeId < $1.writeId } }
    }

    /// Records a new write.
    public func saveWrite(_ write: StoredWrite) {
        writes.withLock { $0.append(write) }
    }

    /// Forgets the write with `writeId`.
    public func removeWrite(withId writeId: Int) {
        writes.withLock { $0.removeAll { $0.writeId == writeId } }
    }

    /// Forgets every write.
    public func removeAllWrites() {
        writes.withLock { $0.removeAll() }
    }
}
