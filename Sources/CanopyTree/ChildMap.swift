/// The children of a node: an immutable map from key to non-empty node, sorted in key order.
///
/// Lookups are binary searches; an update copies the map. The representation is private so
/// that it can change without touching callers.
public struct ChildMap: Sendable {
    @usableFromInline var keys: [ChildKey]
    @usableFromInline var nodes: [Node]

    /// The empty map.
    public static let empty = ChildMap(keys: [], nodes: [])

    @usableFromInline init(keys: [ChildKey], nodes: [Node]) {
        self.keys = keys
        self.nodes = nodes
    }

    /// Builds a map from entries in any order. Empty nodes are dropped; for a repeated key
    /// the last entry wins.
    public init<S: Sequence>(_ entries: S) where S.Element == (ChildKey, Node) {
        var pairs = entries.filter { !$0.1.isEmpty }
        // A stable sort keeps repeated keys in input order, so the last one can win below.
        pairs = pairs.enumerated().sorted { a, b in
            let c = ChildKey.compare(a.element.0, b.element.0)
            return c != 0 ? c < 0 : a.offset < b.offset
        }.map(\.element)
        var keys: [ChildKey] = []
        var nodes: [Node] = []
        keys.reserveCapacity(pairs.count)
        nodes.reserveCapacity(pairs.count)
        for (k, n) in pairs {
            if let last = keys.last, last == k {
                nodes[nodes.count - 1] = n
            } else {
                keys.append(k)
                nodes.append(n)
            }
        }
        self.init(keys: keys, nodes: nodes)
    }

    /// The number of children.
    public var count: Int { keys.count }
    /// Whether there are no children.
    public var isEmpty: Bool { keys.isEmpty }

    /// The index of `key`, or where it would be inserted.
    @usableFromInline func search(_ key: ChildKey) -> (index: Int, found: Bool) {
        var lo = 0
        var hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = ChildKey.compare(keys[mid], key)
            if c == 0 { return (mid, true) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }

    /// The child named `key`, or `nil`.
    public subscript(key: ChildKey) -> Node? {
        let (i, found) = search(key)
        return found ? nodes[i] : nil
    }

    /// A copy with `key` set to `node`; an empty `node` removes the key.
    public func setting(_ key: ChildKey, _ node: Node) -> ChildMap {
        var copy = self
        let (i, found) = search(key)
        if node.isEmpty {
            if found {
                copy.keys.remove(at: i)
                copy.nodes.remove(at: i)
            }
        } else if found {
            copy.nodes[i] = node
        } else {
            copy.keys.insert(key, at: i)
            copy.nodes.insert(node, at: i)
        }
        return copy
    }

    /// The entries in key order.
    public var entries: Zip2Sequence<[ChildKey], [Node]> { zip(keys, nodes) }
    /// The keys in key order.
    public var orderedKeys: [ChildKey] { keys }

    /// The first entry in key order.
    public var first: (key: ChildKey, node: Node)? { keys.isEmpty ? nil : (keys[0], nodes[0]) }
    /// The last entry in key order.
    public var last: (key: ChildKey, node: Node)? {
        keys.isEmpty ? nil : (keys[keys.count - 1], nodes[nodes.count - 1])
    }

    /// The key just before `key` in key order (whether or not `key` is present).
    public func key(before key: ChildKey) -> ChildKey? {
        let (i, _) = search(key)
        return i > 0 ? keys[i - 1] : nil
    }

    /// The key just after `key` in key order (whether or not `key` is present).
    public func key(after key: ChildKey) -> ChildKey? {
        let (i, found) = search(key)
        let next = found ? i + 1 : i
        return next < keys.count ? keys[next] : nil
    }
}
