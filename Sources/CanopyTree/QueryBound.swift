/// One end of a query's range: a bound value, an optional key that breaks ties among
/// children with that value, and whether children equal to the bound are included.
///
/// `startAt(v, k)` is `QueryBound(value: v, key: k, isInclusive: true)`; `startAfter` and
/// `endBefore` are the exclusive forms (client-design.md §6.3). A `nil` value is `null`.
public struct QueryBound: Sendable, Equatable {
    /// The bound's indexed value (`nil` for `null`); for the key index, the key as a string.
    public let value: LeafValue?
    /// The tie-breaking key, or `nil` for none (never used with the key index).
    public let key: ChildKey?
    /// Whether a child equal to the bound matches (`false` for `startAfter`/`endBefore`).
    public let isInclusive: Bool

    /// Creates a bound.
    public init(value: LeafValue?, key: ChildKey? = nil, isInclusive: Bool = true) {
        self.value = value
        self.key = key
        self.isInclusive = isInclusive
    }

    /// The bound value as a node: a leaf, or empty for `null`.
    public var valueNode: Node {
        value.map { Node(leaf: $0) } ?? .empty
    }
}
