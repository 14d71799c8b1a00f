/// The parameters of a query: an index, an optional range and an optional limit
/// (protocol.md §5, client-design.md §6.1).
///
/// Values are immutable and always valid: every initializer and builder method checks the
/// rules of client-design.md §6.8 and throws ``QueryError``. Bounds are normalised so that
/// equivalent spellings are equal: on a non-key index a start keyed ``ChildKey/min`` is an
/// inclusive start without key, a start keyed ``ChildKey/max`` an exclusive start without key
/// (the iOS and JS spellings of `startAfter(v)`), and the same mirrored for the end.
///
/// Two parameter values are equal, and hash alike, when their ``identifier``s are equal.
public struct QueryParams: Sendable {
    /// What the query orders by.
    public let index: Index
    /// The start of the range, or `nil` for none.
    public let start: QueryBound?
    /// The end of the range, or `nil` for none.
    public let end: QueryBound?
    /// The limit, or `nil` for none.
    public let limit: QueryLimit?
    /// The canonical identity of the query: `"default"` for the default query, otherwise the
    /// wire object serialized compactly with its keys sorted. Views, tags and tracked queries
    /// are keyed by it.
    public let identifier: String
    /// Whether an order was chosen explicitly (a query takes one `orderBy`); not part of
    /// the identity.
    let isIndexSet: Bool

    /// The default query: priority order, no range, no limit.
    public static let `default` = QueryParams(
        checked: .priority, start: nil, end: nil, limit: nil, isIndexSet: false)

    /// Creates parameters from their parts, checking them (client-design.md §6.8, except
    /// that a limit of 0 is accepted as the wire and REST forms allow it).
    public init(
        index: Index = .priority, start: QueryBound? = nil, end: QueryBound? = nil,
        limit: QueryLimit? = nil
    ) throws(QueryError) {
        try self.init(index: index, start: start, end: end, limit: limit, isIndexSet: index != .priority)
    }

    init(index: Index, start: QueryBound?, end: QueryBound?, limit: QueryLimit?, isIndexSet: Bool) throws(QueryError) {
        let start = try QueryParams.checked(start, index: index, isStart: true)
        let end = try QueryParams.checked(end, index: index, isStart: false)
        if let limit, limit.count < 0 || limit.count > Int(Int32.max) {
            throw .invalidLimit(Int64(limit.count))
        }
        self.init(checked: index, start: start, end: end, limit: limit, isIndexSet: isIndexSet)
    }

    private init(checked index: Index, start: QueryBound?, end: QueryBound?, limit: QueryLimit?, isIndexSet: Bool) {
        self.index = index
        self.start = start
        self.end = end
        self.limit = limit
        self.isIndexSet = isIndexSet
        self.identifier =
            start == nil && end == nil && limit == nil && index == .priority
            ? "default"
            : QueryParams.canonicalText(QueryParams.wireMembers(index: index, start: start, end: end, limit: limit))
    }

    /// Checks a bound against the index and normalises its sentinel keys.
    private static func checked(_ bound: QueryBound?, index: Index, isStart: Bool) throws(QueryError) -> QueryBound? {
        guard let bound else { return nil }
        switch bound.value {
        case .serverValue?: throw .invalidBoundValue
        case .double(let d)? where !d.isFinite: throw .invalidBoundValue
        default: break
        }
        switch index {
        case .key:
            guard case .string? = bound.value else { throw .keyIndexBoundNotString }
            guard bound.key == nil else { throw .keyIndexBoundWithKey }
            return bound
        case .priority:
            if case .bool? = bound.value { throw .invalidPriorityBound }
        case .value, .child:
            break
        }
        // (v, MIN) and (v, MAX) bounds are the keyless bounds in disguise.
        let outer: ChildKey = isStart ? .min : .max
        let inner: ChildKey = isStart ? .max : .min
        if bound.key == outer { return QueryBound(value: bound.value, key: nil, isInclusive: true) }
        if bound.key == inner { return QueryBound(value: bound.value, key: nil, isInclusive: false) }
        return bound
    }

    // MARK: - Properties

    /// Whether the query has no range and no limit, so it sees every child (it may still
    /// order them differently). Such a query shares the default listen of its path.
    public var loadsAllData: Bool { start == nil && end == nil && limit == nil }

    /// Whether this is the default query: loads all data, in priority order.
    public var isDefault: Bool { loadsAllData && index == .priority }

    /// The start post: the start bound placed where the index reads it, named by the bound's
    /// key, or ``ChildKey/min`` (inclusive) / ``ChildKey/max`` (exclusive) when it has none.
    /// `nil` without a start bound.
    public var startPost: NamedNode? {
        start.map { index.makePost(value: $0.valueNode, key: $0.key ?? ($0.isInclusive ? .min : .max)) }
    }

    /// The end post: the end bound placed where the index reads it, named by the bound's key,
    /// or ``ChildKey/max`` (inclusive) / ``ChildKey/min`` (exclusive) when it has none.
    /// `nil` without an end bound.
    public var endPost: NamedNode? {
        end.map { index.makePost(value: $0.valueNode, key: $0.key ?? ($0.isInclusive ? .max : .min)) }
    }

    /// Whether a child lies within the range (the limit is not considered). For the key
    /// index the child's key is compared with the bound keys.
    public func matches(_ child: NamedNode) -> Bool {
        if let start, let post = startPost {
            let c = index.compare(post, child)
            if start.isInclusive ? c > 0 : c >= 0 { return false }
        }
        if let end, let post = endPost {
            let c = index.compare(child, post)
            if end.isInclusive ? c > 0 : c >= 0 { return false }
        }
        return true
    }

    /// The server's answer for this query over `node`, the data at the query path
    /// (protocol.md §5.2): for a query that loads all data, `node` unchanged; otherwise the
    /// children node of the children within the range, keeping only `limit` of them counted
    /// from the anchored side. Matched children keep their priorities; the root's own
    /// priority is dropped, and a leaf yields empty.
    public func filter(_ node: Node) -> Node {
        if loadsAllData { return node }
        if node.childCount == 0 { return .empty }
        var matched = index.sortedChildren(of: node).filter(matches)
        if let limit, matched.count > limit.count {
            switch limit.anchor {
            case .first: matched.removeLast(matched.count - limit.count)
            case .last: matched.removeFirst(matched.count - limit.count)
            }
        }
        return Node(children: ChildMap(matched.map { ($0.key, $0.node) }))
    }

    // MARK: - Builder

    /// The query ordered by `index` (`orderByPriority`/`Key`/`Value`/`Child`); throws when an
    /// order was already chosen or the existing bounds do not suit the index.
    public func ordered(by index: Index) throws(QueryError) -> QueryParams {
        guard !isIndexSet else { throw .indexAlreadySet }
        if case .child(let path) = index { _ = try Index.childPath(path.serverString) }
        return try QueryParams(index: index, start: start, end: end, limit: limit, isIndexSet: true)
    }

    /// The query ordered by the value at `path` below each child (`orderByChild`); the path
    /// must be non-empty, valid and not `$key`, `$value` or `$priority`.
    public func ordered(byChild path: String) throws(QueryError) -> QueryParams {
        try ordered(by: .child(Index.childPath(path)))
    }

    /// The query with children at or after (`value`, `childKey`) (`startAt`).
    public func starting(at value: LeafValue?, childKey: ChildKey? = nil) throws(QueryError) -> QueryParams {
        try settingStart(QueryBound(value: value, key: childKey, isInclusive: true))
    }

    /// The query with children strictly after (`value`, `childKey`) (`startAfter`); without a
    /// key, after every child whose indexed value is `value`.
    public func starting(after value: LeafValue?, childKey: ChildKey? = nil) throws(QueryError) -> QueryParams {
        try settingStart(QueryBound(value: value, key: childKey, isInclusive: false))
    }

    /// The query with children at or before (`value`, `childKey`) (`endAt`).
    public func ending(at value: LeafValue?, childKey: ChildKey? = nil) throws(QueryError) -> QueryParams {
        try settingEnd(QueryBound(value: value, key: childKey, isInclusive: true))
    }

    /// The query with children strictly before (`value`, `childKey`) (`endBefore`); without a
    /// key, before every child whose indexed value is `value`.
    public func ending(before value: LeafValue?, childKey: ChildKey? = nil) throws(QueryError) -> QueryParams {
        try settingEnd(QueryBound(value: value, key: childKey, isInclusive: false))
    }

    /// The query with children equal to (`value`, `childKey`) (`equalTo`): both bounds.
    public func equal(to value: LeafValue?, childKey: ChildKey? = nil) throws(QueryError) -> QueryParams {
        guard start == nil else { throw .startAlreadySet }
        guard end == nil else { throw .endAlreadySet }
        let bound = QueryBound(value: value, key: childKey, isInclusive: true)
        return try QueryParams(index: index, start: bound, end: bound, limit: limit, isIndexSet: isIndexSet)
    }

    /// The query keeping the first `count` children of its range (`limitToFirst`).
    public func limited(toFirst count: Int) throws(QueryError) -> QueryParams {
        try settingLimit(QueryLimit(count: count, anchor: .first))
    }

    /// The query keeping the last `count` children of its range (`limitToLast`).
    public func limited(toLast count: Int) throws(QueryError) -> QueryParams {
        try settingLimit(QueryLimit(count: count, anchor: .last))
    }

    private func settingStart(_ bound: QueryBound) throws(QueryError) -> QueryParams {
        guard start == nil else { throw .startAlreadySet }
        return try QueryParams(index: index, start: bound, end: end, limit: limit, isIndexSet: isIndexSet)
    }

    private func settingEnd(_ bound: QueryBound) throws(QueryError) -> QueryParams {
        guard end == nil else { throw .endAlreadySet }
        return try QueryParams(index: index, start: start, end: bound, limit: limit, isIndexSet: isIndexSet)
    }

    private func settingLimit(_ limit: QueryLimit) throws(QueryError) -> QueryParams {
        guard self.limit == nil else { throw .limitAlreadySet }
        guard limit.count > 0 else { throw .invalidLimit(Int64(limit.count)) }
        return try QueryParams(index: index, start: start, end: end, limit: limit, isIndexSet: isIndexSet)
    }
}

extension QueryParams: Hashable {
    /// Equal when the identifiers are equal.
    public static func == (lhs: QueryParams, rhs: QueryParams) -> Bool {
        lhs.identifier == rhs.identifier
    }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }
}

extension QueryParams: CustomStringConvertible {
    /// The identifier.
    public var description: String { identifier }
}
