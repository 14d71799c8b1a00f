import CanopyTree

/// The onDisconnect operations one connection has registered: an ordered list of pending
/// sets, none at or below another (protocol.md §10).
///
/// Values are kept unresolved (server-value placeholders included) and resolved when they
/// run. The semantics match the clients' own model:
/// - ``set(_:at:)`` replaces every pending set at or below the path; when a pending set
///   exists at an ancestor, the value is merged into that set instead;
/// - ``merge(_:at:)`` is a set at `path/key` for each key;
/// - ``cancel(at:)`` removes every pending set at or below the path; a pending set at an
///   ancestor is split into per-child sets so that the cancelled part is dropped while its
///   siblings still run.
public struct OnDisconnectQueue: Sendable {
    /// One pending write: overwrite `path` with `value` when the connection ends.
    public struct PendingSet: Sendable, Equatable {
        /// Where the value is written.
        public var path: Path
        /// The unresolved value (empty deletes).
        public var value: Node

        /// Creates a pending set.
        public init(path: Path, value: Node) {
            self.path = path
            self.value = value
        }
    }

    /// The pending sets in the order they run.
    public private(set) var pending: [PendingSet] = []

    /// An empty queue.
    public init() {}

    /// Whether nothing is pending.
    public var isEmpty: Bool { pending.isEmpty }

    /// Registers an `o`: overwrite `path` with `value` on disconnect.
    public mutating func set(_ value: Node, at path: Path) {
        if let i = pending.firstIndex(where: { $0.path.contains(path) }) {
            let relative = path.relative(to: pending[i].path) ?? .root
            pending[i].value = pending[i].value.updating(at: relative, value)
            return
        }
        if let first = pending.firstIndex(where: { path.contains($0.path) }) {
            pending.removeAll { path.contains($0.path) }
            pending.insert(PendingSet(path: path, value: value), at: min(first, pending.count))
        } else {
            pending.append(PendingSet(path: path, value: value))
        }
    }

    /// Registers an `om`: for each relative path, a ``set(_:at:)`` at `path/relative`.
    public mutating func merge(_ children: [(Path, Node)], at path: Path) {
        for (relative, value) in children {
            set(value, at: path.child(relative))
        }
    }

    /// Registers an `oc`: drops every pending write at or below `path`.
    public mutating func cancel(at path: Path) {
        var result: [PendingSet] = []
        for entry in pending {
            if path.contains(entry.path) { continue }
            if entry.path.contains(path) {
                result.append(contentsOf: Self.split(entry, dropping: path))
            } else {
                result.append(entry)
            }
        }
        pending = result
    }

    /// Removes and returns every pending set, in order.
    public mutating func drain() -> [PendingSet] {
        defer { pending = [] }
        return pending
    }

    /// Splits a pending set at an ancestor of `target` into sets for each child on the way
    /// down, leaving out `target` itself.
    private static func split(_ entry: PendingSet, dropping target: Path) -> [PendingSet] {
        guard let relative = target.relative(to: entry.path), let key = relative.front else { return [] }
        // A leaf set cannot be split: it replaces everything below it, so it keeps running.
        if entry.value.isLeaf { return [entry] }
        var sets: [PendingSet] = []
        if let priority = entry.value.priority {
            sets.append(PendingSet(path: entry.path.child(.priority), value: Node(leaf: priority)))
        }
        for (childKey, childNode) in entry.value.children.entries where childKey != key {
            sets.append(PendingSet(path: entry.path.child(childKey), value: childNode))
        }
        let onPath = PendingSet(path: entry.path.child(key), value: entry.value.child(key))
        if onPath.path != target {
            sets.append(contentsOf: split(onPath, dropping: target))
        }
        return sets
    }
}
