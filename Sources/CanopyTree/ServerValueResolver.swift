/// Replaces server-value placeholders in written data with their values (protocol.md §1.4,
/// client-design.md §10.4).
///
/// - `timestamp` becomes the clock's time in milliseconds since the Unix epoch; every
///   placeholder of one write gets the same time (the clock is read once per call).
/// - `increment(n)` becomes current + n when the current value at that exact location is a
///   number leaf (booleans are not numbers), otherwise n. Two integers add as 64-bit
///   integers unless the sum overflows; any other sum is a double (clamped to the finite
///   range, since JSON cannot carry infinities).
///
/// Placeholders are resolved wherever a leaf or a priority may hold one. The current values
/// come from the data the write replaces: the existing node at the write path for an
/// overwrite, the existing node at each target for a merge.
public struct ServerValueResolver: Sendable {
    /// The time source, in milliseconds since the Unix epoch.
    public let clock: @Sendable () -> Int64

    /// Creates a resolver reading the time from `clock`.
    public init(clock: @escaping @Sendable () -> Int64) {
        self.clock = clock
    }

    /// Resolves an overwrite: `node` will replace `existing` (the current node at the write
    /// path).
    public func resolve(_ node: Node, existing: Node) -> Node {
        ServerValueResolver.resolve(node, existing: existing, now: clock())
    }

    /// Resolves an overwrite of the node at `path` in `tree`.
    public func resolve(_ node: Node, at path: Path, in tree: Node) -> Node {
        resolve(node, existing: tree.child(at: path))
    }

    /// Resolves a merge: each child (relative path, node) is resolved against the node at
    /// that relative path below `existing`, the current node at the merge path. A relative
    /// path ending in `.priority` addresses the priority. One time for the whole merge.
    public func resolveMerge(_ children: [(path: Path, node: Node)], existing: Node) -> [(path: Path, node: Node)] {
        let now = clock()
        return children.map {
            ($0.path, ServerValueResolver.resolve($0.node, existing: existing.child(at: $0.path), now: now))
        }
    }

    /// Resolves a merge at `path` in `tree`.
    public func resolveMerge(_ children: [(path: Path, node: Node)], at path: Path, in tree: Node) -> [(
        path: Path, node: Node
    )] {
        resolveMerge(children, existing: tree.child(at: path))
    }

    /// Resolves every placeholder in `node` against `existing` with the time `now`; returns
    /// `node` itself when it holds none.
    public static func resolve(_ node: Node, existing: Node, now: Int64) -> Node {
        resolved(node, existing: existing, now: now) ?? node
    }

    /// The value of one placeholder, given the current node at its location.
    public static func resolve(_ value: ServerValue, existing: Node, now: Int64) -> LeafValue {
        switch value {
        case .timestamp:
            return .int(now)
        case .incrementInt(let n):
            switch existing.leafValue {
            case .int(let current)?:
                let (sum, overflow) = current.addingReportingOverflow(n)
                return overflow ? finite(Double(current) + Double(n)) : .int(sum)
            case .double(let current)?:
                return finite(current + Double(n))
            default:
                return .int(n)
            }
        case .incrementDouble(let n):
            guard let current = existing.leafValue?.numberValue else { return .double(n) }
            return finite(current + n)
        }
    }

    /// The resolved node, or `nil` when `node` holds no placeholder.
    private static func resolved(_ node: Node, existing: Node, now: Int64) -> Node? {
        var changed = false
        var priority = node.priority
        if case .serverValue(let value)? = priority {
            priority = resolve(value, existing: existing.priorityNode, now: now)
            changed = true
        }
        switch node.content {
        case .leaf(.serverValue(let value)):
            return Node(leaf: resolve(value, existing: existing, now: now), priority: priority)
        case .leaf:
            return changed ? node.withPriority(priority) : nil
        case .children(let map):
            // Children are copied from the first one that changes on.
            var entries: [(ChildKey, Node)]?
            for (offset, (key, child)) in map.entries.enumerated() {
                let replacement = resolved(child, existing: existing.child(key), now: now)
                if replacement != nil && entries == nil {
                    entries = Array(map.entries.prefix(offset).map { ($0.0, $0.1) })
                }
                entries?.append((key, replacement ?? child))
            }
            guard let entries else { return changed ? node.withPriority(priority) : nil }
            return Node(children: ChildMap(entries), priority: priority)
        }
    }

    /// A double sum, clamped to the finite range.
    private static func finite(_ sum: Double) -> LeafValue {
        if sum.isFinite { return .double(sum) }
        return .double(sum > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude)
    }
}
