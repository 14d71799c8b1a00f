/// What a query orders its children by (protocol.md §1.3 and §5.2, client-design.md §6.2).
///
/// Every index compares children by an *indexed value* in value order and breaks ties by
/// key order; the key index compares keys only.
public enum Index: Sendable, Hashable {
    /// The default order: by priority (none < numbers < strings), then key.
    case priority
    /// By key (key order).
    case key
    /// By the child's own value (value order), then key.
    case value
    /// By the value at a relative path below each child (missing = `null`), then key.
    case child(Path)

    /// Three-way comparison of two children under this index: negative when `a` sorts
    /// first, zero when equal, positive when `b` sorts first.
    public func compare(_ a: NamedNode, _ b: NamedNode) -> Int {
        switch self {
        case .key:
            return ChildKey.compare(a.key, b.key)
        case .priority:
            let c = ValueOrder.comparePriorities(a.node.priority, b.node.priority)
            return c != 0 ? c : ChildKey.compare(a.key, b.key)
        case .value:
            let c = ValueOrder.compare(a.node, b.node)
            return c != 0 ? c : ChildKey.compare(a.key, b.key)
        case .child(let path):
            let c = ValueOrder.compare(a.node.child(at: path), b.node.child(at: path))
            return c != 0 ? c : ChildKey.compare(a.key, b.key)
        }
    }

    /// The value this index orders `child` by: its priority as a node (empty for none), its
    /// key as a string leaf, the node itself, or the node at the child path (empty when
    /// missing).
    public func indexedValue(of child: NamedNode) -> Node {
        switch self {
        case .priority: return child.node.priorityNode
        case .key: return Node(leaf: .string(child.key.string))
        case .value: return child.node
        case .child(let path): return child.node.child(at: path)
        }
    }

    /// Whether a change of a child from `old` to `new` can move it under this index (never
    /// for the key index).
    public func indexedValueChanged(from old: Node, to new: Node) -> Bool {
        switch self {
        case .key: return false
        case .priority: return ValueOrder.comparePriorities(old.priority, new.priority) != 0
        case .value: return ValueOrder.compare(old, new) != 0
        case .child(let path): return ValueOrder.compare(old.child(at: path), new.child(at: path)) != 0
        }
    }

    /// Whether `node` has a value of its own under this index: a priority for the priority
    /// index, a non-empty node at the path for a child index, always for key and value.
    public func isDefinedOn(_ node: Node) -> Bool {
        switch self {
        case .priority: return node.priority != nil
        case .key, .value: return true
        case .child(let path): return !node.child(at: path).isEmpty
        }
    }

    /// A post: a named node that sorts where a child with indexed value `value` and key `key`
    /// would. For the key index the post is named by `value`'s string (a non-string value
    /// gives ``ChildKey/min``) and `key` is ignored.
    public func makePost(value: Node, key: ChildKey) -> NamedNode {
        switch self {
        case .priority:
            // Only the priority matters; the leaf carries it (an empty node cannot).
            return NamedNode(key: key, node: Node(leaf: .bool(true), priority: value.leafValue))
        case .key:
            if case .string(let s)? = value.leafValue { return NamedNode(key: ChildKey(s), node: .empty) }
            return .min
        case .value:
            return NamedNode(key: key, node: value)
        case .child(let path):
            return NamedNode(key: key, node: Node.empty.updating(at: path, value))
        }
    }

    /// The children of `node` sorted by this index (empty for leaves). Indexed values are
    /// looked up once per child, then sorted.
    public func sortedChildren(of node: Node) -> [NamedNode] {
        let children = node.children
        switch self {
        case .key:
            return children.entries.map { NamedNode(key: $0.0, node: $0.1) }
        case .priority, .value, .child:
            var decorated = children.entries.map { (key, child) in
                (value: indexedValue(of: NamedNode(key: key, node: child)), named: NamedNode(key: key, node: child))
            }
            decorated.sort { a, b in
                let c = ValueOrder.compare(a.value, b.value)
                return c != 0 ? c < 0 : ChildKey.compare(a.named.key, b.named.key) < 0
            }
            return decorated.map(\.named)
        }
    }

    // MARK: - Wire and REST forms

    /// The `i` member of a wire query object: `nil` for the priority index (omitted),
    /// `".key"`, `".value"`, or the child path without a leading slash (`"a/b"`).
    public var wireString: String? {
        switch self {
        case .priority: return nil
        case .key: return ".key"
        case .value: return ".value"
        case .child(let path): return path.serverString
        }
    }

    /// Parses the `i` member of a wire query object (`".priority"` is accepted too).
    public init(wireString: String) throws(QueryError) {
        switch wireString {
        case ".priority": self = .priority
        case ".key": self = .key
        case ".value": self = .value
        default: self = .child(try Index.childPath(wireString))
        }
    }

    /// The REST `orderBy` value before JSON encoding: `$priority`, `$key`, `$value` or the
    /// child path (`a/b`).
    public var restString: String {
        switch self {
        case .priority: return "$priority"
        case .key: return "$key"
        case .value: return "$value"
        case .child(let path): return path.serverString
        }
    }

    /// Parses a REST `orderBy` value (already JSON-decoded).
    public init(restString: String) throws(QueryError) {
        switch restString {
        case "$priority": self = .priority
        case "$key": self = .key
        case "$value": self = .value
        default: self = .child(try Index.childPath(restString))
        }
    }

    /// Parses and checks the path of a child index: not empty, no reserved names, and keys
    /// without `.`, `$`, `#`, `[`, `]` or ASCII control characters.
    static func childPath(_ string: String) throws(QueryError) -> Path {
        let path = Path(string)
        guard !path.isRoot else { throw .invalidIndexPath(string) }
        guard path.keys.allSatisfy({ TreeValidation.isValidKey($0.string) }) else { throw .invalidIndexPath(string) }
        return path
    }
}

extension Index: CustomStringConvertible {
    /// The REST spelling (`$priority`, `$key`, `$value`, or the child path).
    public var description: String { restString }
}
