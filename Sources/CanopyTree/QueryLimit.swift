/// A query's limit: how many children it keeps and from which end of its range.
public struct QueryLimit: Sendable, Equatable {
    /// The side of the range a limit counts from.
    public enum Anchor: Sendable, Equatable {
        /// The first children in index order (`limitToFirst`, wire `vf: "l"`).
        case first
        /// The last children in index order (`limitToLast`, wire `vf: "r"`).
        case last
    }

    /// The maximum number of children (0…2³¹−1; the client API requires at least 1).
    public let count: Int
    /// The side the limit counts from.
    public let anchor: Anchor

    /// Creates a limit.
    public init(count: Int, anchor: Anchor) {
        self.count = count
        self.anchor = anchor
    }
}
