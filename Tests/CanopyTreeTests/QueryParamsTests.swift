import CanopyTree
import Testing

@Suite struct QueryParamsTests {
    typealias F = QueryFixtures

    /// Children ordered by `score`: f (missing), a 1, b 2, c 2, d 2, e 3 — with priorities
    /// ordering them e, d, c, b, a, f.
    static let data = F.object([
        ("a", F.object([("score", F.int(1))], priority: .string("z"))),
        ("b", F.object([("score", F.int(2))], priority: .string("y"))),
        ("c", F.object([("score", F.leaf(.double(2)))], priority: .int(9))),
        ("d", F.object([("score", F.int(2))], priority: .int(5))),
        ("e", F.object([("score", F.int(3))], priority: .int(1))),
        ("f", F.object([("other", F.int(0))])),
    ])

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let build: @Sendable (QueryParams) throws -> QueryParams
        let expected: [String]
        var testDescription: String { name }
    }

    static let byScore = QueryParams.default
    static let rows: [Row] = [
        Row(
            name: "orderByChild only", build: { try $0.ordered(byChild: "score") },
            expected: ["f", "a", "b", "c", "d", "e"]),
        Row(
            name: "startAt(2)", build: { try $0.ordered(byChild: "score").starting(at: .int(2)) },
            expected: ["b", "c", "d", "e"]),
        Row(
            name: "startAt(2, c)", build: { try $0.ordered(byChild: "score").starting(at: .int(2), childKey: "c") },
            expected: ["c", "d", "e"]),
        Row(
            name: "startAfter(2)", build: { try $0.ordered(byChild: "score").starting(after: .int(2)) }, expected: ["e"]
        ),
        Row(
            name: "startAfter(2, c)",
            build: { try $0.ordered(byChild: "score").starting(after: .double(2), childKey: "c") },
            expected: ["d", "e"]),
        Row(
            name: "endAt(2)", build: { try $0.ordered(byChild: "score").ending(at: .int(2)) },
            expected: ["f", "a", "b", "c", "d"]),
        Row(
            name: "endAt(2, c)", build: { try $0.ordered(byChild: "score").ending(at: .int(2), childKey: "c") },
            expected: ["f", "a", "b", "c"]),
        Row(
            name: "endBefore(2)", build: { try $0.ordered(byChild: "score").ending(before: .int(2)) },
            expected: ["f", "a"]),
        Row(
            name: "endBefore(2, c)", build: { try $0.ordered(byChild: "score").ending(before: .int(2), childKey: "c") },
            expected: ["f", "a", "b"]),
        Row(
            name: "equalTo(2)", build: { try $0.ordered(byChild: "score").equal(to: .int(2)) },
            expected: ["b", "c", "d"]),
        Row(
            name: "equalTo(2, c)", build: { try $0.ordered(byChild: "score").equal(to: .int(2), childKey: "c") },
            expected: ["c"]),
        Row(name: "equalTo(null)", build: { try $0.ordered(byChild: "score").equal(to: nil) }, expected: ["f"]),
        Row(
            name: "startAfter(null)", build: { try $0.ordered(byChild: "score").starting(after: nil) },
            expected: ["a", "b", "c", "d", "e"]),
        Row(
            name: "startAt(1.5) endAt(2.5)",
            build: { try $0.ordered(byChild: "score").starting(at: .double(1.5)).ending(at: .double(2.5)) },
            expected: ["b", "c", "d"]),
        Row(
            name: "startAt(\"a\") matches no numbers",
            build: { try $0.ordered(byChild: "score").starting(at: .string("a")) }, expected: []),
        Row(
            name: "limitToFirst(2)", build: { try $0.ordered(byChild: "score").limited(toFirst: 2) },
            expected: ["f", "a"]),
        Row(
            name: "limitToLast(2)", build: { try $0.ordered(byChild: "score").limited(toLast: 2) },
            expected: ["d", "e"]),
        Row(
            name: "startAt(2) limitToFirst(2)",
            build: { try $0.ordered(byChild: "score").starting(at: .int(2)).limited(toFirst: 2) }, expected: ["b", "c"]),
        Row(
            name: "startAt(2) limitToLast(2)",
            build: { try $0.ordered(byChild: "score").starting(at: .int(2)).limited(toLast: 2) }, expected: ["d", "e"]),
        Row(
            name: "endBefore(3) limitToLast(10)",
            build: { try $0.ordered(byChild: "score").ending(before: .int(3)).limited(toLast: 10) },
            expected: ["f", "a", "b", "c", "d"]),
        Row(
            name: "key startAt(b)", build: { try $0.ordered(by: .key).starting(at: .string("b")) },
            expected: ["b", "c", "d", "e", "f"]),
        Row(
            name: "key startAfter(b)", build: { try $0.ordered(by: .key).starting(after: .string("b")) },
            expected: ["c", "d", "e", "f"]),
        Row(
            name: "key endAt(c)", build: { try $0.ordered(by: .key).ending(at: .string("c")) },
            expected: ["a", "b", "c"]),
        Row(
            name: "key endBefore(c)", build: { try $0.ordered(by: .key).ending(before: .string("c")) },
            expected: ["a", "b"]),
        Row(name: "key equalTo(d)", build: { try $0.ordered(by: .key).equal(to: .string("d")) }, expected: ["d"]),
        Row(
            name: "key startAfter(b) limitToLast(2)",
            build: { try $0.ordered(by: .key).starting(after: .string("b")).limited(toLast: 2) }, expected: ["e", "f"]),
        Row(
            name: "key startAt([MAX_NAME])", build: { try $0.ordered(by: .key).starting(at: .string("[MAX_NAME]")) },
            expected: []),
        Row(name: "priority all", build: { try $0.limited(toFirst: 100) }, expected: ["f", "e", "d", "c", "b", "a"]),
        Row(name: "priority startAt(5)", build: { try $0.starting(at: .int(5)) }, expected: ["d", "c", "b", "a"]),
        Row(
            name: "priority startAt(5) endAt(y)", build: { try $0.starting(at: .int(5)).ending(at: .string("y")) },
            expected: ["d", "c", "b"]),
        Row(name: "priority endAt(null)", build: { try $0.ending(at: nil) }, expected: ["f"]),
        Row(name: "priority startAfter(9)", build: { try $0.starting(after: .int(9)) }, expected: ["b", "a"]),
        Row(
            name: "priority endBefore(y)", build: { try $0.ending(before: .string("y")) },
            expected: ["f", "e", "d", "c"]),
        Row(
            name: "value startAt(true)", build: { try $0.ordered(by: .value).starting(at: .bool(true)) },
            expected: ["a", "b", "c", "d", "e", "f"]),
        Row(
            name: "value endAt(\"zzz\")", build: { try $0.ordered(by: .value).ending(at: .string("zzz")) }, expected: []
        ),
    ]

    @Test(arguments: rows) func rangesAndLimits(row: Row) throws {
        let params = try row.build(.default)
        let result = params.filter(Self.data)
        let ordered = params.index.sortedChildren(of: result)
        #expect(F.keys(ordered) == row.expected)
        // matches() agrees with filter() when there is no limit.
        if params.limit == nil {
            let matching = params.index.sortedChildren(of: Self.data).filter(params.matches)
            #expect(F.keys(matching) == row.expected)
        }
        // Matched children keep their priorities.
        for child in ordered { #expect(child.node == Self.data.child(child.key)) }
    }

    @Test func filterEdgeCases() throws {
        let ranged = try QueryParams.default.ordered(by: .value).starting(at: .int(0))
        // A leaf at the query path yields empty for a filtering query.
        #expect(ranged.filter(F.int(5)) == .empty)
        #expect(ranged.filter(.empty) == .empty)
        // The root's own priority is dropped.
        let withPriority = F.object([("a", F.int(1, priority: .int(3)))], priority: .string("root"))
        let filtered = ranged.filter(withPriority)
        #expect(filtered.priority == nil)
        #expect(filtered.child("a") == F.int(1, priority: .int(3)))
        // A query that loads all data returns the node unchanged.
        let all = try QueryParams.default.ordered(by: .value)
        #expect(all.filter(withPriority) == withPriority)
        #expect(all.filter(F.int(5)) == F.int(5))
    }

    @Test func defaultAndLoadsAllData() throws {
        #expect(QueryParams.default.isDefault)
        #expect(QueryParams.default.loadsAllData)
        #expect(QueryParams.default.identifier == "default")
        let byValue = try QueryParams.default.ordered(by: .value)
        #expect(byValue.loadsAllData)
        #expect(!byValue.isDefault)
        #expect(byValue.identifier == #"{"i":".value"}"#)
        let limited = try QueryParams.default.limited(toFirst: 1)
        #expect(!limited.loadsAllData)
        #expect(!limited.isDefault)
        #expect(try QueryParams(index: .priority) == .default)
    }

    @Test func identifierIsCanonical() throws {
        let a = try QueryParams.default.ordered(byChild: "score").starting(at: .int(1)).limited(toLast: 3)
        let b = try QueryParams.default.limited(toLast: 3).starting(at: .double(1)).ordered(byChild: "/score/")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.identifier == #"{"i":"score","l":3,"sin":true,"sp":1,"vf":"r"}"#)
        let c = try QueryParams.default.ordered(byChild: "score").starting(at: .string("1")).limited(toLast: 3)
        #expect(a != c)
        let quoted = try QueryParams.default.ordered(by: .key).equal(to: .string("a\"b\\c\n"))
        #expect(try JSONParser.parse(quoted.identifier) == quoted.wireObject)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test func postsAndSentinels() throws {
        let params = try QueryParams.default.ordered(by: .value).starting(after: .int(2)).ending(before: .int(5))
        #expect(params.startPost == NamedNode(key: .max, node: F.int(2)))
        #expect(params.endPost == NamedNode(key: .min, node: F.int(5)))
        let inclusive = try QueryParams.default.ordered(by: .value).starting(at: .int(2)).ending(at: .int(5))
        #expect(inclusive.startPost == NamedNode(key: .min, node: F.int(2)))
        #expect(inclusive.endPost == NamedNode(key: .max, node: F.int(5)))
        #expect(QueryParams.default.startPost == nil)
        #expect(QueryParams.default.endPost == nil)
        // The iOS spelling of startAfter(v) is the same query.
        let ios = try QueryParams(index: .value, start: QueryBound(value: .int(2), key: .max, isInclusive: true))
        #expect(ios == (try QueryParams.default.ordered(by: .value).starting(after: .int(2))))
        #expect(ios.start == QueryBound(value: .int(2), key: nil, isInclusive: false))
    }

    @Test func builderValidation() throws {
        let d = QueryParams.default
        #expect(throws: QueryError.indexAlreadySet) { try d.ordered(by: .value).ordered(by: .key) }
        #expect(throws: QueryError.indexAlreadySet) { try d.ordered(by: .priority).ordered(by: .priority) }
        #expect(throws: QueryError.startAlreadySet) { try d.starting(at: .int(1)).starting(after: .int(2)) }
        #expect(throws: QueryError.startAlreadySet) { try d.starting(at: .int(1)).equal(to: .int(2)) }
        #expect(throws: QueryError.endAlreadySet) { try d.ending(at: .int(1)).ending(before: .int(2)) }
        #expect(throws: QueryError.endAlreadySet) { try d.ending(at: .int(1)).equal(to: .int(2)) }
        #expect(throws: QueryError.startAlreadySet) { try d.equal(to: .int(1)).starting(at: .int(2)) }
        #expect(throws: QueryError.endAlreadySet) { try d.equal(to: .int(1)).ending(at: .int(2)) }
        #expect(throws: QueryError.invalidLimit(0)) { try d.limited(toFirst: 0) }
        #expect(throws: QueryError.invalidLimit(-1)) { try d.limited(toLast: -1) }
        #expect(throws: QueryError.invalidLimit(2_147_483_648)) { try d.limited(toLast: 2_147_483_648) }
        _ = try d.limited(toLast: 2_147_483_647)
        #expect(throws: QueryError.limitAlreadySet) { try d.limited(toFirst: 1).limited(toLast: 1) }
        #expect(throws: QueryError.keyIndexBoundNotString) { try d.ordered(by: .key).starting(at: .int(1)) }
        #expect(throws: QueryError.keyIndexBoundNotString) { try d.ordered(by: .key).ending(before: nil) }
        #expect(throws: QueryError.keyIndexBoundWithKey) {
            try d.ordered(by: .key).equal(to: .string("a"), childKey: "b")
        }
        // Order-independent: bounds first, then the index.
        #expect(throws: QueryError.keyIndexBoundNotString) { try d.starting(at: .int(1)).ordered(by: .key) }
        #expect(throws: QueryError.keyIndexBoundWithKey) {
            try d.starting(at: .string("a"), childKey: "k").ordered(by: .key)
        }
        #expect(throws: QueryError.invalidPriorityBound) { try d.starting(at: .bool(true)) }
        #expect(throws: QueryError.invalidPriorityBound) {
            try QueryParams(index: .priority, end: QueryBound(value: .bool(false)))
        }
        _ = try d.ordered(by: .value).ending(at: .bool(false))
        #expect(throws: QueryError.invalidBoundValue) {
            try d.ordered(by: .value).starting(at: .serverValue(.timestamp))
        }
        #expect(throws: QueryError.invalidBoundValue) { try d.ordered(by: .value).starting(at: .double(.infinity)) }
        #expect(throws: QueryError.invalidIndexPath("$key")) { try d.ordered(byChild: "$key") }
        #expect(throws: QueryError.invalidIndexPath("")) { try d.ordered(byChild: "") }
        #expect(throws: QueryError.invalidIndexPath("a/.b")) { try d.ordered(by: .child("a/.b")) }
    }
}
