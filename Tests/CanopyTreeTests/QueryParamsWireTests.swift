import CanopyTree
import Testing

@Suite struct QueryParamsWireTests {
    typealias F = QueryFixtures

    static func obj(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(members.map { JSONMember($0.0, $0.1) })
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let call: String
        let build: @Sendable () throws -> QueryParams
        /// What JS sends (members in sorted order, as `wireObject` produces them).
        let js: JSONValue
        /// What iOS/Android send.
        let ios: JSONValue
        /// Whether the iOS form is the same query (not for the successor/predecessor rows).
        let iosSame: Bool
        var testDescription: String { call }
    }

    static let d = QueryParams.default
    static let rows: [Row] = [
        Row(
            call: "startAt(v)", build: { try d.ordered(byChild: "a/b").starting(at: .int(5)) },
            js: obj([("i", .string("a/b")), ("sin", .bool(true)), ("sp", .int(5))]),
            ios: obj([("i", .string("a/b")), ("sp", .int(5))]), iosSame: true),
        Row(
            call: "startAt(v, k)", build: { try d.ordered(by: .value).starting(at: .string("x"), childKey: "k") },
            js: obj([("i", .string(".value")), ("sin", .bool(true)), ("sn", .string("k")), ("sp", .string("x"))]),
            ios: obj([("i", .string(".value")), ("sn", .string("k")), ("sp", .string("x"))]), iosSame: true),
        Row(
            call: "startAfter(v)", build: { try d.starting(after: .int(5)) },
            js: obj([("sin", .bool(false)), ("sn", .string("[MAX_NAME]")), ("sp", .int(5))]),
            ios: obj([("sn", .string("[MAX_NAME]")), ("sp", .int(5))]), iosSame: true),
        Row(
            call: "startAfter(v, k)", build: { try d.ordered(by: .value).starting(after: .int(5), childKey: "k") },
            js: obj([("i", .string(".value")), ("sin", .bool(false)), ("sn", .string("k")), ("sp", .int(5))]),
            ios: obj([("i", .string(".value")), ("sn", .string("k-")), ("sp", .int(5))]), iosSame: false),
        Row(
            call: "startAfter(k) by key", build: { try d.ordered(by: .key).starting(after: .string("k")) },
            js: obj([("i", .string(".key")), ("sin", .bool(false)), ("sp", .string("k"))]),
            ios: obj([("i", .string(".key")), ("sp", .string("k-"))]), iosSame: false),
        Row(
            call: "endAt(v)", build: { try d.ordered(by: .value).ending(at: .bool(true)) },
            js: obj([("ein", .bool(true)), ("ep", .bool(true)), ("i", .string(".value"))]),
            ios: obj([("ep", .bool(true)), ("i", .string(".value"))]), iosSame: true),
        Row(
            call: "endAt(v, k)", build: { try d.ending(at: .string("p"), childKey: "k") },
            js: obj([("ein", .bool(true)), ("en", .string("k")), ("ep", .string("p"))]),
            ios: obj([("en", .string("k")), ("ep", .string("p"))]), iosSame: true),
        Row(
            call: "endBefore(v)", build: { try d.ordered(byChild: "n").ending(before: .double(1.5)) },
            js: obj([("ein", .bool(false)), ("en", .string("[MIN_NAME]")), ("ep", .double(1.5)), ("i", .string("n"))]),
            ios: obj([("en", .string("[MIN_NAME]")), ("ep", .double(1.5)), ("i", .string("n"))]), iosSame: true),
        Row(
            call: "endBefore(v, k)", build: { try d.ordered(by: .value).ending(before: .int(5), childKey: "k") },
            js: obj([("ein", .bool(false)), ("en", .string("k")), ("ep", .int(5)), ("i", .string(".value"))]),
            ios: obj([
                ("en", .string("jzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")), ("ep", .int(5)), ("i", .string(".value")),
            ]), iosSame: false),
        Row(
            call: "endBefore(k) by key", build: { try d.ordered(by: .key).ending(before: .string("k")) },
            js: obj([("ein", .bool(false)), ("ep", .string("k")), ("i", .string(".key"))]),
            ios: obj([("ep", .string("jzzzz")), ("i", .string(".key"))]), iosSame: false),
        Row(
            call: "equalTo(v)", build: { try d.ordered(by: .value).equal(to: nil) },
            js: obj([
                ("ein", .bool(true)), ("ep", .null), ("i", .string(".value")), ("sin", .bool(true)), ("sp", .null),
            ]),
            ios: obj([("ep", .null), ("i", .string(".value")), ("sp", .null)]), iosSame: true),
        Row(
            call: "equalTo(v, k)", build: { try d.ordered(by: .value).equal(to: .int(1), childKey: "k") },
            js: obj([
                ("ein", .bool(true)), ("en", .string("k")), ("ep", .int(1)), ("i", .string(".value")),
                ("sin", .bool(true)), ("sn", .string("k")), ("sp", .int(1)),
            ]),
            ios: obj([
                ("en", .string("k")), ("ep", .int(1)), ("i", .string(".value")), ("sn", .string("k")), ("sp", .int(1)),
            ]),
            iosSame: true),
        Row(
            call: "limitToFirst(n)", build: { try d.limited(toFirst: 10) },
            js: obj([("l", .int(10)), ("vf", .string("l"))]), ios: obj([("l", .int(10)), ("vf", .string("l"))]),
            iosSame: true),
        Row(
            call: "limitToLast(n)", build: { try d.ordered(by: .key).limited(toLast: 1) },
            js: obj([("i", .string(".key")), ("l", .int(1)), ("vf", .string("r"))]),
            ios: obj([("i", .string(".key")), ("l", .int(1)), ("vf", .string("r"))]), iosSame: true),
        Row(
            call: "orderByChild(a/b)", build: { try d.ordered(byChild: "a/b") },
            js: obj([("i", .string("a/b"))]), ios: obj([("i", .string("a/b"))]), iosSame: true),
        Row(
            call: "orderByKey()", build: { try d.ordered(by: .key) },
            js: obj([("i", .string(".key"))]), ios: obj([("i", .string(".key"))]), iosSame: true),
        Row(
            call: "orderByValue()", build: { try d.ordered(by: .value) },
            js: obj([("i", .string(".value"))]), ios: obj([("i", .string(".value"))]), iosSame: true),
    ]

    /// Children to check that equivalent spellings select the same children.
    static let probe = F.object([
        ("j", F.int(5)), ("jzzzz", F.int(5)), ("k", F.int(5)), ("k-", F.int(5)), ("k0", F.int(5)), ("l", F.int(5)),
        ("m", F.int(4)), ("n", F.int(6)),
    ])

    @Test(arguments: rows) func mapsClientCalls(row: Row) throws {
        let params = try row.build()
        #expect(params.wireObject == row.js)
        // JS form: parses to the same query and prints back identically.
        let parsedJS = try QueryParams(wire: row.js)
        #expect(parsedJS == params)
        #expect(parsedJS.wireObject == row.js)
        #expect(parsedJS.filter(Self.probe) == params.filter(Self.probe))
        // iOS/Android form.
        let parsedIOS = try QueryParams(wire: row.ios)
        if row.iosSame {
            #expect(parsedIOS == params)
            #expect(parsedIOS.wireObject == row.js)
        } else {
            #expect(parsedIOS.start?.isInclusive ?? true)
            #expect(parsedIOS.end?.isInclusive ?? true)
            #expect(F.keys(parsedIOS.filter(Self.probe)) == F.keys(params.filter(Self.probe)))
        }
    }

    @Test func bareLimitAnchors() throws {
        let startOnly = try QueryParams(wire: Self.obj([("l", .int(3)), ("sp", .int(1))]))
        #expect(startOnly.limit == QueryLimit(count: 3, anchor: .first))
        let none = try QueryParams(wire: Self.obj([("l", .int(3))]))
        #expect(none.limit == QueryLimit(count: 3, anchor: .last))
        let both = try QueryParams(wire: Self.obj([("ep", .int(9)), ("l", .double(3)), ("sp", .int(1))]))
        #expect(both.limit == QueryLimit(count: 3, anchor: .last))
        let zero = try QueryParams(wire: Self.obj([("l", .int(0)), ("vf", .string("l"))]))
        #expect(zero.filter(Self.probe) == .empty)
    }

    @Test func keyIndexIgnoresNames() throws {
        let params = try QueryParams(
            wire: Self.obj([("i", .string(".key")), ("sn", .string("z")), ("sp", .string("k"))]))
        #expect(params.start == QueryBound(value: .string("k")))
        #expect(F.keys(params.filter(Self.probe)) == ["k", "k-", "k0", "l", "m", "n"])
    }

    @Test func unknownMembersIgnored() throws {
        let params = try QueryParams(wire: Self.obj([("x", .array([])), ("l", .int(2)), ("vf", .string("l"))]))
        #expect(params == (try QueryParams.default.limited(toFirst: 2)))
    }

    @Test func rejectsMalformedObjects() {
        let bad: [JSONValue] = [
            .array([]),
            .string("q"),
            Self.obj([("i", .int(1))]),
            Self.obj([("i", .string("a/$b"))]),
            Self.obj([("sp", .object([JSONMember(".sv", .string("timestamp"))]))]),
            Self.obj([("ep", .array([.int(1)]))]),
            Self.obj([("sp", .int(1)), ("sn", .int(2))]),
            Self.obj([("sp", .int(1)), ("sin", .string("false"))]),
            Self.obj([("l", .int(-1))]),
            Self.obj([("l", .int(1 << 31))]),
            Self.obj([("l", .double(1.5))]),
            Self.obj([("l", .string("1"))]),
            Self.obj([("l", .int(1)), ("vf", .string("x"))]),
            Self.obj([("i", .string(".key")), ("sp", .int(1))]),
            Self.obj([("sp", .bool(true))]),
        ]
        for value in bad {
            #expect(throws: QueryError.self, "\(value)") { try QueryParams(wire: value) }
        }
    }
}
