import CanopyTree

/// The `writeSizeLimit` query parameter (protocol.md §11.4): the largest write a request
/// accepts, as a target duration that Canopy turns into a byte budget of about 1 MB per
/// second of target.
///
/// The cost of a write is estimated as the size of its body plus the size of the data it
/// replaces (so deleting a large subtree is costly, as on the real server). Writes over the
/// budget are refused with `413` (Canopy's choice; the real server's status is not
/// observable).
enum RESTWriteSizeLimit: String, Sendable, CaseIterable {
    /// Target about 1 s: 1 MB.
    case tiny
    /// Target about 10 s: 10 MB.
    case small
    /// Target about 30 s: 30 MB.
    case medium
    /// Target about 60 s: 60 MB.
    case large
    /// No target: only the server's maximum request size applies.
    case unlimited

    /// The byte budget, or `nil` for ``unlimited``.
    var byteBudget: Int? {
        switch self {
        case .tiny: return 1_000_000
        case .small: return 10_000_000
        case .medium: return 30_000_000
        case .large: return 60_000_000
        case .unlimited: return nil
        }
    }

    /// The approximate serialized size of `node` in bytes, counting no further than just
    /// past `limit` (so that estimating a huge subtree against a small budget stays cheap).
    static func estimatedSize(of node: Node, upTo limit: Int) -> Int {
        var total = 0
        var pending = [node]
        while let next = pending.popLast(), total <= limit {
            if let priority = next.priority { total += 16 + leafSize(priority) }
            switch next.content {
            case .leaf(let value):
                total += leafSize(value)
            case .children(let map):
                total += 2
                for (key, child) in map.entries {
                    total += key.string.utf8.count + 4
                    pending.append(child)
                }
            }
        }
        return total
    }

    /// The serialized size of a leaf value.
    private static func leafSize(_ value: LeafValue) -> Int {
        switch value {
        case .string(let text): return text.utf8.count + 2
        case .bool: return 5
        case .int, .double: return 8
        case .serverValue: return 24
        }
    }
}
