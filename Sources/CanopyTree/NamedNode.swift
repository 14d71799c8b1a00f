/// A child of a node together with its key: the unit queries sort, filter and bound.
///
/// A *post* is a named node used as a range bound: the bound's value placed where an index
/// reads it, with the bound's key (or a key sentinel); see ``Index/makePost(value:key:)``.
public struct NamedNode: Sendable, Equatable {
    /// The child's key (possibly a sentinel, for posts).
    public var key: ChildKey
    /// The child's node.
    public var node: Node

    /// Creates a named node.
    public init(key: ChildKey, node: Node) {
        self.key = key
        self.node = node
    }

    /// The post that sorts at or before every child under every index: the empty node named
    /// ``ChildKey/min``.
    public static let min = NamedNode(key: .min, node: .empty)
}

extension NamedNode: CustomStringConvertible {
    /// The key, for diagnostics.
    public var description: String { "NamedNode(\(key.string))" }
}
