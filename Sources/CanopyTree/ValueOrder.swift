/// The value order and the priority order of nodes (protocol.md §1.3).
///
/// Value order, used by the value index, the child index and range bounds:
/// empty (`null`) < server-value placeholders < `false` < `true` < numbers (numerically, by
/// their double value) < strings (UTF-16 code units) < children nodes (all equal to one
/// another).
///
/// Priority order, used by the default (priority) index: no priority < numbers < strings,
/// which is the value order applied to the priorities as leaf nodes.
///
/// Both are three-way comparisons that ignore keys; an index breaks ties by key order.
public enum ValueOrder {
    /// Compares two nodes by value order: negative when `a` sorts first, zero when they are
    /// equal in this order, positive when `b` sorts first. Priorities are ignored.
    public static func compare(_ a: Node, _ b: Node) -> Int {
        switch (a.content, b.content) {
        case (.leaf(let x), .leaf(let y)):
            return compare(x, y)
        case (.leaf, .children(let map)):
            return map.isEmpty ? 1 : -1
        case (.children(let map), .leaf):
            return map.isEmpty ? -1 : 1
        case (.children(let x), .children(let y)):
            if x.isEmpty == y.isEmpty { return 0 }
            return x.isEmpty ? -1 : 1
        }
    }

    /// Compares two leaf values by value order (placeholders < booleans < numbers < strings).
    public static func compare(_ a: LeafValue, _ b: LeafValue) -> Int {
        let ra = rank(a)
        let rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.bool(let x), .bool(let y)):
            return x == y ? 0 : (x ? 1 : -1)
        case (.string(let x), .string(let y)):
            return CodeUnitOrder.compare(x, y)
        default:
            // Numbers compare by their double value, as every client does; placeholders are
            // all equal to one another.
            guard let x = a.numberValue, let y = b.numberValue, x != y else { return 0 }
            return x < y ? -1 : 1
        }
    }

    /// Compares two optional priorities by priority order: none < numbers < strings
    /// (a placeholder sorts between none and numbers).
    public static func comparePriorities(_ a: LeafValue?, _ b: LeafValue?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, .some): return -1
        case (.some, nil): return 1
        case (.some(let x), .some(let y)): return compare(x, y)
        }
    }

    /// The type rank of a leaf in value order.
    private static func rank(_ value: LeafValue) -> Int {
        switch value {
        case .serverValue: return 0
        case .bool: return 1
        case .int, .double: return 2
        case .string: return 3
        }
    }
}
