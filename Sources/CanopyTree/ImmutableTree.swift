/// An immutable tree that stores an optional value at any path, with children in key order.
///
/// The engine uses it for sparse data keyed by path: compound writes (nodes), the sync
/// points of a sync tree, and the paths an acknowledged write touched. Every update returns
/// a new tree; unchanged subtrees are shared.
public struct ImmutableTree<Value> {
    /// The value stored at this tree's root, if any.
    public let value: Value?
    /// The child subtrees in key order; never empty trees.
    public let children: [(key: ChildKey, tree: ImmutableTree<Value>)]

    /// The tree with no values.
    public static var empty: ImmutableTree<Value> { ImmutableTree(value: nil, children: []) }

    /// Creates a tree from a root value and children (empty children are dropped; keys must
    /// be distinct).
    public init(value: Value? = nil, children: [(key: ChildKey, tree: ImmutableTree<Value>)] = []) {
        self.value = value
        self.children = children.filter { !$0.tree.isEmpty }.sorted { ChildKey.compare($0.key, $1.key) < 0 }
    }

    private init(value: Value?, sortedChildren: [(key: ChildKey, tree: ImmutableTree<Value>)]) {
        self.value = value
        self.children = sortedChildren
    }

    /// Creates a tree holding `value` at each of the given paths.
    public init(entries: [(Path, Value)]) {
        var tree = ImmutableTree<Value>.empty
        for (path, value) in entries { tree = tree.setting(path, value) }
        self = tree
    }

    /// Whether the tree holds no value at all.
    public var isEmpty: Bool { value == nil && children.isEmpty }

    private func index(of key: ChildKey) -> (index: Int, found: Bool) {
        var lo = 0
        var hi = children.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = ChildKey.compare(children[mid].key, key)
            if c == 0 { return (mid, true) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }

    /// The child subtree named `key`, or `nil`.
    public func child(_ key: ChildKey) -> ImmutableTree<Value>? {
        let (i, found) = index(of: key)
        return found ? children[i].tree : nil
    }

    /// The subtree at `path` (empty when nothing is stored there or below).
    public func subtree(at path: Path) -> ImmutableTree<Value> {
        var tree = self
        for key in path.keys {
            guard let next = tree.child(key) else { return .empty }
            tree = next
        }
        return tree
    }

    /// The value stored exactly at `path`, or `nil`.
    public func value(at path: Path) -> Value? { subtree(at: path).value }

    /// The rootmost value on the way from the root to `path` (inclusive) that satisfies
    /// `predicate`, with the path where it is stored.
    public func rootmostValue(on path: Path, where predicate: (Value) -> Bool = { _ in true })
        -> (path: Path, value: Value)?
    {
        var tree = self
        var depth = 0
        while true {
            if let value = tree.value, predicate(value) { return (Path(keys: Array(path.keys.prefix(depth))), value) }
            guard depth < path.count, let next = tree.child(path.keys[depth]) else { return nil }
            tree = next
            depth += 1
        }
    }

    /// A copy with `value` stored at `path` (replacing a value there, keeping subtrees).
    public func setting(_ path: Path, _ value: Value) -> ImmutableTree<Value> {
        guard let front = path.front else { return ImmutableTree(value: value, sortedChildren: children) }
        let child = self.child(front) ?? .empty
        return replacingChild(front, child.setting(path.popFront, value))
    }

    /// A copy with the subtree at `path` replaced by `tree` (at the root, `tree` itself).
    public func replacingSubtree(at path: Path, with tree: ImmutableTree<Value>) -> ImmutableTree<Value> {
        guard let front = path.front else { return tree }
        let child = self.child(front) ?? .empty
        return replacingChild(front, child.replacingSubtree(at: path.popFront, with: tree))
    }

    /// A copy without the value at `path` (subtrees below it are kept).
    public func removingValue(at path: Path) -> ImmutableTree<Value> {
        guard let front = path.front else { return ImmutableTree(value: nil, sortedChildren: children) }
        guard let child = self.child(front) else { return self }
        return replacingChild(front, child.removingValue(at: path.popFront))
    }

    /// A copy with the child `key` replaced by `tree` (removed when `tree` is empty).
    public func replacingChild(_ key: ChildKey, _ tree: ImmutableTree<Value>) -> ImmutableTree<Value> {
        var copy = children
        let (i, found) = index(of: key)
        if tree.isEmpty {
            if found { copy.remove(at: i) }
        } else if found {
            copy[i] = (key, tree)
        } else {
            copy.insert((key, tree), at: i)
        }
        return ImmutableTree(value: value, sortedChildren: copy)
    }

    /// Every stored value with its path, children (in key order) before their parent.
    public func forEach(_ body: (Path, Value) -> Void) {
        forEach(prefix: .root, body)
    }

    private func forEach(prefix: Path, _ body: (Path, Value) -> Void) {
        for (key, tree) in children { tree.forEach(prefix: prefix.child(key), body) }
        if let value { body(prefix, value) }
    }

    /// Folds the tree bottom-up: `combine` receives a subtree's path, its value and the
    /// folded results of its children in key order.
    public func fold<Result>(_ combine: (Path, Value?, [(ChildKey, Result)]) -> Result) -> Result {
        fold(prefix: .root, combine)
    }

    private func fold<Result>(prefix: Path, _ combine: (Path, Value?, [(ChildKey, Result)]) -> Result) -> Result {
        let folded = children.map { ($0.key, $0.tree.fold(prefix: prefix.child($0.key), combine)) }
        return combine(prefix, value, folded)
    }
}

extension ImmutableTree: Sendable where Value: Sendable {}
