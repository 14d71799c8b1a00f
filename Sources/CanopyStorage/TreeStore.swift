import CanopyTree

/// The authoritative copy of a JSON tree, kept by a storage backend.
///
/// Writes follow `Node` semantics exactly (`Node.updating(at:_:)`): writing an empty node
/// deletes; writing below a leaf replaces the leaf with a children node that keeps the leaf's
/// priority; a node left without children disappears with its priority; writing to
/// `…/.priority` sets (or, with a non-leaf node, clears) the priority of an existing node
/// and does nothing at an empty location. `.priority` may only be the last key of a written
/// path; elsewhere a write throws ``StorageError/Kind-swift.enum/invalidPath``. Non-finite
/// numbers throw ``StorageError/Kind-swift.enum/invalidValue``.
///
/// Every write method is one atomic commit: when it returns, the whole write is
/// acknowledged — durable as the backend documents — and when it throws, none of it
/// happened. Methods are synchronous and cheap enough to call from the actor that owns the
/// store; implementations are thread-safe.
public protocol TreeStore: AnyObject, Sendable {
    /// The node at `path` (empty when nothing is stored there).
    func read(at path: Path) throws(StorageError) -> Node

    /// Replaces the node at `path` with `node` (deleting it when `node` is empty).
    func overwrite(at path: Path, with node: Node) throws(StorageError)

    /// Replaces each node at `path` + relative path, in order, in one atomic commit.
    func merge(at path: Path, children: [(Path, Node)]) throws(StorageError)

    /// The number of leaves and the logical size of the stored tree.
    func stats() -> TreeStoreStats

    /// Releases the store's resources. Later calls throw ``StorageError/closed``; closing
    /// twice is harmless. Every acknowledged write is already durable before `close`.
    func close()
}
