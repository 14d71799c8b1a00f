/// The wire form of query parameters (protocol.md §5.1).
extension QueryParams {
    /// The query object a client sends in a listen (`q`), in the JS form: `i` unless the
    /// index is priority; `sp`, `sn` when a key is set or synthesised (`[MAX_NAME]` for a
    /// keyless `startAfter`, `[MIN_NAME]` for a keyless `endBefore`), `sin`; likewise `ep`,
    /// `en`, `ein`; `l` and `vf`. Members are in sorted key order.
    public var wireObject: JSONValue {
        .object(QueryParams.wireMembers(index: index, start: start, end: end, limit: limit))
    }

    /// Parses a query object in either client form: the JS form (with `sin`/`ein`) and the
    /// iOS/Android form (no flags = inclusive; `sn`/`en` may be the key sentinels). Unknown
    /// members are ignored; for the key index `sn`/`en` are ignored; a limit without `vf`
    /// anchors to the start when only a start is set, else to the end.
    public init(wire: JSONValue) throws(QueryError) {
        guard case .object = wire else { throw .invalidWireObject("not an object") }
        var index = Index.priority
        if let i = wire["i"] {
            guard case .string(let s) = i else { throw .invalidWireObject("i is not a string") }
            index = try Index(wireString: s)
        }
        let start = try QueryParams.wireBound(wire, index: index, value: "sp", name: "sn", inclusive: "sin")
        let end = try QueryParams.wireBound(wire, index: index, value: "ep", name: "en", inclusive: "ein")
        var limit: QueryLimit?
        if let l = wire["l"] {
            let count: Int64
            switch l {
            case .int(let n): count = n
            case .double(let d):
                guard let n = QueryParams.integral(d) else { throw .invalidWireObject("l is not an integer") }
                count = n
            default: throw .invalidWireObject("l is not an integer")
            }
            guard count >= 0 && count <= Int64(Int32.max) else { throw .invalidLimit(count) }
            let anchor: QueryLimit.Anchor
            switch wire["vf"] {
            case .string("l")?: anchor = .first
            case .string("r")?: anchor = .last
            case nil: anchor = start != nil && end == nil ? .first : .last
            default: throw .invalidWireObject("vf is not \"l\" or \"r\"")
            }
            limit = QueryLimit(count: Int(count), anchor: anchor)
        }
        try self.init(index: index, start: start, end: end, limit: limit, isIndexSet: wire["i"] != nil)
    }

    /// Reads one bound of a wire query object.
    private static func wireBound(
        _ wire: JSONValue, index: Index, value: String, name: String, inclusive: String
    ) throws(QueryError) -> QueryBound? {
        guard let raw = wire[value] else { return nil }
        let leaf: LeafValue?
        switch raw {
        case .null: leaf = nil
        case .bool(let b): leaf = .bool(b)
        case .int(let i): leaf = .int(i)
        case .double(let d): leaf = .double(d)
        case .string(let s): leaf = .string(s)
        case .array, .object: throw .invalidWireObject("\(value) is not a JSON leaf")
        }
        var key: ChildKey?
        if index != .key, let n = wire[name] {
            guard case .string(let s) = n else { throw .invalidWireObject("\(name) is not a string") }
            key = ChildKey(s)
        }
        var isInclusive = true
        if let flag = wire[inclusive] {
            guard case .bool(let b) = flag else { throw .invalidWireObject("\(inclusive) is not a boolean") }
            isInclusive = b
        }
        return QueryBound(value: leaf, key: key, isInclusive: isInclusive)
    }

    /// The members of the wire object, sorted by key.
    static func wireMembers(index: Index, start: QueryBound?, end: QueryBound?, limit: QueryLimit?) -> [JSONMember] {
        var members: [JSONMember] = []
        if let end {
            members.append(JSONMember("ein", .bool(end.isInclusive)))
            if let name = wireName(end, index: index, exclusiveSentinel: .min) {
                members.append(JSONMember("en", .string(name)))
            }
            members.append(JSONMember("ep", end.value?.json ?? .null))
        }
        if let i = index.wireString { members.append(JSONMember("i", .string(i))) }
        if let limit { members.append(JSONMember("l", .int(Int64(limit.count)))) }
        if let start {
            members.append(JSONMember("sin", .bool(start.isInclusive)))
            if let name = wireName(start, index: index, exclusiveSentinel: .max) {
                members.append(JSONMember("sn", .string(name)))
            }
            members.append(JSONMember("sp", start.value?.json ?? .null))
        }
        if let limit { members.append(JSONMember("vf", .string(limit.anchor == .first ? "l" : "r"))) }
        return members
    }

    /// The `sn`/`en` to send: the bound's key, or the sentinel JS sends for a keyless
    /// exclusive bound on a non-key index.
    private static func wireName(_ bound: QueryBound, index: Index, exclusiveSentinel: ChildKey) -> String? {
        if index == .key { return nil }
        if let key = bound.key { return key.string }
        return bound.isInclusive ? nil : exclusiveSentinel.string
    }

    /// The compact, deterministic text of the sorted wire members (the identifier).
    /// Integral numbers print without a fraction so that `1` and `1.0` give the same text.
    static func canonicalText(_ members: [JSONMember]) -> String {
        JSONValue.object(
            members.map { member in
                if case .double(let d) = member.value, let i = integral(d) { return JSONMember(member.key, .int(i)) }
                return member
            }
        ).serialized()
    }

    /// `d` as an integer when it is integral and within ±2⁵³ (checked without libm).
    static func integral(_ d: Double) -> Int64? {
        guard d > -9_007_199_254_740_992 && d < 9_007_199_254_740_992 else { return nil }
        let i = Int64(d)
        return Double(i) == d ? i : nil
    }
}
