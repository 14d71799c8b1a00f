import CanopyTree

/// The `.info` sync tree's ``ListenProvider``: answers listens from the in-memory `.info`
/// snapshot, never from the network (client-design.md §10.2).
///
/// A new listen whose location already has a value gets it at once as server data and is
/// complete; a listen on a location with no value yet hears nothing until one arrives.
final class InfoListenProvider: ListenProvider {
    /// The `.info` data, rooted at the database root (its only child is `.info`).
    private(set) var data: Node = .empty
    /// The tree the provider answers for.
    weak var tree: SyncTree?

    /// The `.info` value at `path`.
    func value(at path: Path) -> Node { data.child(at: path) }

    /// Records `node` at `path` and applies it to the tree as server data.
    func update(_ path: Path, _ node: Node) -> [Event] {
        data = data.updating(at: path, node)
        return tree?.applyServerOverwrite(path: path, node: node) ?? []
    }

    func startListening(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String,
        onComplete: @escaping (ListenStatus) -> [Event]
    ) -> [Event] {
        let node = data.child(at: query.path)
        guard !node.isEmpty, let tree else { return [] }
        return tree.applyServerOverwrite(path: query.path, node: node) + onComplete(.ok)
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {}
}
