/// The children of a node: an immutable map from key to non-empty node, sorted in key order.
///
/// The entries are kept in sorted chunks of at most 64 entries, shared between
/// copies: lookups are two binary searches, and an update copies one chunk and the list of
/// chunk references — not every entry — so updating one child of a node with many children
/// stays cheap. The representation is private so that it can change without touching
/// callers.
public struct ChildMap: Sendable {
    /// A sorted run of entries; never empty, never mutated once built.
    @usableFromInline final class Chunk: Sendable {
        @usableFromInline let keys: [ChildKey]
        @usableFromInline let nodes: [Node]

        @usableFromInline init(keys: [ChildKey], nodes: [Node]) {
            self.keys = keys
            self.nodes = nodes
        }
    }

    /// The most entries in one chunk; a full chunk splits in two on insertion.
    @usableFromInline static let chunkCapacity = 64
    /// Chunks smaller than this merge with a neighbour after a removal when both fit.
    @usableFromInline static let chunkMinimum = 16

    @usableFromInline var chunks: [Chunk]
    @usableFromInline var total: Int

    /// The empty map.
    public static let empty = ChildMap(chunks: [], total: 0)

    @usableFromInline init(chunks: [Chunk], total: Int) {
        self.chunks = chunks
        self.total = total
    }

    /// A map of entries already sorted by key, without repeats or empty nodes.
    @usableFromInline init(sortedKeys keys: [ChildKey], nodes: [Node]) {
        var chunks: [Chunk] = []
        let capacity = ChildMap.chunkCapacity
        chunks.reserveCapacity((keys.count + capacity - 1) / capacity)
        var start = 0
        while start < keys.count {
            let end = Swift.min(start + capacity, keys.count)
            chunks.append(Chunk(keys: Array(keys[start..<end]), nodes: Array(nodes[start..<end])))
            start = end
        }
        self.init(chunks: chunks, total: keys.count)
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
        self.init(sortedKeys: keys, nodes: nodes)
    }

    /// The number of children.
    public var count: Int { total }
    /// Whether there are no children.
    public var isEmpty: Bool { total == 0 }

    /// Where `key` is or would be inserted: the chunk (the last one when `key` sorts after
    /// every key; 0 when the map is empty), the index within it, and whether it is present.
    @usableFromInline func locate(_ key: ChildKey) -> (chunk: Int, index: Int, found: Bool) {
        guard !chunks.isEmpty else { return (0, 0, false) }
        // The first chunk whose last key is not before `key`.
        var lo = 0
        var hi = chunks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let keys = chunks[mid].keys
            if ChildKey.compare(keys[keys.count - 1], key) < 0 { lo = mid + 1 } else { hi = mid }
        }
        let chunk = Swift.min(lo, chunks.count - 1)
        let keys = chunks[chunk].keys
        var first = 0
        var last = keys.count
        while first < last {
            let mid = (first + last) / 2
            let c = ChildKey.compare(keys[mid], key)
            if c == 0 { return (chunk, mid, true) }
            if c < 0 { first = mid + 1 } else { last = mid }
        }
        return (chunk, first, false)
    }

    /// The child named `key`, or `nil`.
    public subscript(key: ChildKey) -> Node? {
        let (chunk, index, found) = locate(key)
        return found ? chunks[chunk].nodes[index] : nil
    }

    /// A copy with `key` set to `node`; an empty `node` removes the key.
    public func setting(_ key: ChildKey, _ node: Node) -> ChildMap {
        let (c, i, found) = locate(key)
        if node.isEmpty {
            guard found else { return self }
            return removing(chunk: c, index: i)
        }
        guard !chunks.isEmpty else {
            return ChildMap(chunks: [Chunk(keys: [key], nodes: [node])], total: 1)
        }
        var keys = chunks[c].keys
        var nodes = chunks[c].nodes
        var copy = self
        if found {
            nodes[i] = node
            copy.chunks[c] = Chunk(keys: keys, nodes: nodes)
            return copy
        }
        keys.insert(key, at: i)
        nodes.insert(node, at: i)
        copy.total += 1
        if keys.count <= ChildMap.chunkCapacity {
            copy.chunks[c] = Chunk(keys: keys, nodes: nodes)
        } else {
            let half = keys.count / 2
            copy.chunks.replaceSubrange(
                c...c,
                with: [
                    Chunk(keys: Array(keys[..<half]), nodes: Array(nodes[..<half])),
                    Chunk(keys: Array(keys[half...]), nodes: Array(nodes[half...])),
                ])
        }
        return copy
    }

    /// A copy without the entry at `index` of chunk `c`; a chunk left small merges with a
    /// neighbour when both fit in one.
    private func removing(chunk c: Int, index i: Int) -> ChildMap {
        var keys = chunks[c].keys
        var nodes = chunks[c].nodes
        keys.remove(at: i)
        nodes.remove(at: i)
        var copy = self
        copy.total -= 1
        if keys.isEmpty {
            copy.chunks.remove(at: c)
            return copy
        }
        if keys.count < ChildMap.chunkMinimum {
            if c + 1 < chunks.count, keys.count + chunks[c + 1].keys.count <= ChildMap.chunkCapacity {
                let next = chunks[c + 1]
                copy.chunks.replaceSubrange(
                    c...(c + 1), with: [Chunk(keys: keys + next.keys, nodes: nodes + next.nodes)])
                return copy
            }
            if c > 0, keys.count + chunks[c - 1].keys.count <= ChildMap.chunkCapacity {
                let previous = chunks[c - 1]
                copy.chunks.replaceSubrange(
                    (c - 1)...c, with: [Chunk(keys: previous.keys + keys, nodes: previous.nodes + nodes)])
                return copy
            }
        }
        copy.chunks[c] = Chunk(keys: keys, nodes: nodes)
        return copy
    }

    /// The entries of a map in key order.
    public struct Entries: Sequence, Sendable {
        @usableFromInline let chunks: [Chunk]
        @usableFromInline let total: Int

        /// Iterates the entries in key order.
        public struct Iterator: IteratorProtocol {
            @usableFromInline let chunks: [Chunk]
            @usableFromInline var chunk = 0
            @usableFromInline var index = 0

            @usableFromInline init(chunks: [Chunk]) { self.chunks = chunks }

            /// The next entry, or `nil` after the last.
            @inlinable public mutating func next() -> (ChildKey, Node)? {
                guard chunk < chunks.count else { return nil }
                let current = chunks[chunk]
                let entry = (current.keys[index], current.nodes[index])
                index += 1
                if index == current.keys.count {
                    chunk += 1
                    index = 0
                }
                return entry
            }
        }

        /// An iterator from the first entry.
        @inlinable public func makeIterator() -> Iterator { Iterator(chunks: chunks) }

        /// The number of entries.
        @inlinable public var underestimatedCount: Int { total }
    }

    /// The entries in key order.
    public var entries: Entries { Entries(chunks: chunks, total: total) }
    /// The keys in key order.
    public var orderedKeys: [ChildKey] {
        var keys: [ChildKey] = []
        keys.reserveCapacity(total)
        for chunk in chunks { keys.append(contentsOf: chunk.keys) }
        return keys
    }

    /// The first entry in key order.
    public var first: (key: ChildKey, node: Node)? {
        guard let chunk = chunks.first else { return nil }
        return (chunk.keys[0], chunk.nodes[0])
    }
    /// The last entry in key order.
    public var last: (key: ChildKey, node: Node)? {
        guard let chunk = chunks.last else { return nil }
        return (chunk.keys[chunk.keys.count - 1], chunk.nodes[chunk.nodes.count - 1])
    }

    /// The key just before `key` in key order (whether or not `key` is present).
    public func key(before key: ChildKey) -> ChildKey? {
        let (c, i, _) = locate(key)
        guard !chunks.isEmpty else { return nil }
        if i > 0 {
            // `i` can equal the chunk's count when `key` sorts after every key.
            return chunks[c].keys[i - 1]
        }
        return c > 0 ? chunks[c - 1].keys.last : nil
    }

    /// The key just after `key` in key order (whether or not `key` is present).
    public func key(after key: ChildKey) -> ChildKey? {
        let (c, i, found) = locate(key)
        guard !chunks.isEmpty else { return nil }
        let next = found ? i + 1 : i
        if next < chunks[c].keys.count { return chunks[c].keys[next] }
        return c + 1 < chunks.count ? chunks[c + 1].keys[0] : nil
    }

    /// Whether both maps hold equal entries; chunks shared between them are skipped.
    func entriesEqual(_ other: ChildMap) -> Bool {
        guard total == other.total else { return false }
        if chunks.count == other.chunks.count {
            var same = true
            for (a, b) in zip(chunks, other.chunks) where a !== b {
                if a.keys != b.keys || a.nodes != b.nodes {
                    same = false
                    break
                }
            }
            if same { return true }
            // Chunk boundaries can differ between equal maps, so only a match is decisive.
        }
        for (a, b) in zip(entries, other.entries) where a.0 != b.0 || a.1 != b.1 { return false }
        return true
    }
}
