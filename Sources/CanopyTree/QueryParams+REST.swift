/// The REST query-string form of query parameters (protocol.md §11.4 and §5.4).
extension QueryParams {
    /// The names of the REST parameters that describe a query.
    public static let restParameterNames: Set<String> = [
        "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast",
    ]

    /// Parses the query parameters of a REST request. `parameters` holds percent-decoded
    /// values; parameters other than ``restParameterNames`` are ignored.
    ///
    /// `orderBy` is a JSON string (`"$key"`, `"$value"`, `"$priority"` or a child path) and is
    /// required when any other query parameter is present; bounds are a JSON value optionally
    /// followed by `,` and a JSON key string (`5,"k1"`); limits are non-negative integers.
    public init(restParameters parameters: [String: String]) throws(QueryError) {
        guard let orderBy = parameters["orderBy"] else {
            if parameters.keys.contains(where: { QueryParams.restParameterNames.contains($0) }) {
                throw .orderByRequired
            }
            self = .default
            return
        }
        guard case .string(let indexText)? = try? JSONParser.parse(orderBy) else {
            throw .invalidRESTParameter(name: "orderBy", reason: "must be a JSON string")
        }
        let index: Index
        do {
            index = try Index(restString: indexText)
        } catch {
            throw .invalidRESTParameter(name: "orderBy", reason: error.description)
        }

        var start: QueryBound?
        var end: QueryBound?
        if let text = parameters["startAt"] {
            start = try QueryParams.restBound(text, name: "startAt", isInclusive: true)
        }
        if let text = parameters["startAfter"] {
            guard start == nil else { throw .startAlreadySet }
            start = try QueryParams.restBound(text, name: "startAfter", isInclusive: false)
        }
        if let text = parameters["endAt"] { end = try QueryParams.restBound(text, name: "endAt", isInclusive: true) }
        if let text = parameters["endBefore"] {
            guard end == nil else { throw .endAlreadySet }
            end = try QueryParams.restBound(text, name: "endBefore", isInclusive: false)
        }
        if let text = parameters["equalTo"] {
            guard start == nil else { throw .startAlreadySet }
            guard end == nil else { throw .endAlreadySet }
            start = try QueryParams.restBound(text, name: "equalTo", isInclusive: true)
            end = start
        }

        var limit: QueryLimit?
        if let text = parameters["limitToFirst"] {
            limit = QueryLimit(count: try QueryParams.restLimit(text, name: "limitToFirst"), anchor: .first)
        }
        if let text = parameters["limitToLast"] {
            guard limit == nil else { throw .limitAlreadySet }
            limit = QueryLimit(count: try QueryParams.restLimit(text, name: "limitToLast"), anchor: .last)
        }
        try self.init(index: index, start: start, end: end, limit: limit, isIndexSet: true)
    }

    /// The REST query parameters for this query, unencoded, in a fixed order: `orderBy`
    /// (omitted only for the default query), then `equalTo` or the start and end bounds,
    /// then the limit.
    public var restParameters: [(String, String)] {
        if isDefault { return [] }
        var parameters = [("orderBy", JSONValue.string(index.restString).serialized())]
        if let start, let end, start == end, start.isInclusive {
            parameters.append(("equalTo", QueryParams.restText(start)))
        } else {
            if let start {
                parameters.append((start.isInclusive ? "startAt" : "startAfter", QueryParams.restText(start)))
            }
            if let end { parameters.append((end.isInclusive ? "endAt" : "endBefore", QueryParams.restText(end))) }
        }
        if let limit {
            parameters.append((limit.anchor == .first ? "limitToFirst" : "limitToLast", String(limit.count)))
        }
        return parameters
    }

    /// A bound as `<JSON value>[,<JSON key>]`.
    private static func restText(_ bound: QueryBound) -> String {
        var text = (bound.value?.json ?? .null).serialized()
        if let key = bound.key { text += "," + JSONValue.string(key.string).serialized() }
        return text
    }

    /// Parses `<JSON leaf>[,<JSON string>]`, tolerating whitespace around both parts.
    private static func restBound(_ text: String, name: String, isInclusive: Bool) throws(QueryError) -> QueryBound {
        let bytes = Array(text.utf8)
        // The first value ends at the closing quote of a string, else at the first comma.
        var i = 0
        while i < bytes.count, isSpace(bytes[i]) { i += 1 }
        var end = i
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            end += 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            end = Swift.min(end + 1, bytes.count)
        } else {
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes[..<end])
        } catch {
            throw .invalidRESTParameter(name: name, reason: "the value is not valid JSON (strings must be quoted)")
        }
        let value: LeafValue?
        switch parsed {
        case .null: value = nil
        case .bool(let b): value = .bool(b)
        case .int(let n): value = .int(n)
        case .double(let d): value = .double(d)
        case .string(let s): value = .string(s)
        case .array, .object:
            throw .invalidRESTParameter(name: name, reason: "the value must be a JSON string, number, boolean or null")
        }
        var rest = end
        while rest < bytes.count, isSpace(bytes[rest]) { rest += 1 }
        guard rest < bytes.count else { return QueryBound(value: value, key: nil, isInclusive: isInclusive) }
        guard bytes[rest] == UInt8(ascii: ",") else {
            throw .invalidRESTParameter(name: name, reason: "expected `,` and a key after the value")
        }
        guard case .string(let key)? = try? JSONParser.parse(bytes[(rest + 1)...]) else {
            throw .invalidRESTParameter(name: name, reason: "the key after `,` must be a JSON string")
        }
        return QueryBound(value: value, key: ChildKey(key), isInclusive: isInclusive)
    }

    /// Parses a non-negative limit below 2³¹, tolerating surrounding whitespace.
    private static func restLimit(_ text: String, name: String) throws(QueryError) -> Int {
        let digits = text.utf8.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalidRESTParameter(name: name, reason: "must be a non-negative integer")
        }
        let value = digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
        guard value <= Int64(Int32.max) else { throw .invalidLimit(value) }
        return Int(value)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
