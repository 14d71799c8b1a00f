import CanopyTree
import Testing

@Suite struct QueryParamsRESTTests {
    static let d = QueryParams.default

    struct Row: Sendable, CustomTestStringConvertible {
        let query: [(String, String)]
        let build: @Sendable () throws -> QueryParams
        var testDescription: String { query.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
    }

    static let rows: [Row] = [
        Row(query: [], build: { d }),
        Row(query: [("orderBy", #""$key""#)], build: { try d.ordered(by: .key) }),
        Row(query: [("orderBy", #""$priority""#), ("limitToFirst", "2")], build: { try d.limited(toFirst: 2) }),
        Row(
            query: [("orderBy", #""$value""#), ("startAt", "5"), ("endAt", #""x","k""#)],
            build: { try d.ordered(by: .value).starting(at: .int(5)).ending(at: .string("x"), childKey: "k") }),
        Row(
            query: [("orderBy", #""a/b""#), ("startAfter", #"1.5,"k1""#), ("endBefore", "true")],
            build: {
                try d.ordered(byChild: "a/b").starting(after: .double(1.5), childKey: "k1").ending(before: .bool(true))
            }),
        Row(
            query: [("orderBy", #""$key""#), ("equalTo", #""a,b""#)],
            build: { try d.ordered(by: .key).equal(to: .string("a,b")) }),
        Row(
            query: [("orderBy", #""score""#), ("equalTo", "null"), ("limitToLast", "3")],
            build: { try d.ordered(byChild: "score").equal(to: nil).limited(toLast: 3) }),
        Row(
            query: [("orderBy", #""score""#), ("startAt", #""he said \"hi\"""#), ("limitToFirst", "1")],
            build: { try d.ordered(byChild: "score").starting(at: .string("he said \"hi\"")).limited(toFirst: 1) }),
    ]

    @Test(arguments: rows) func parsesAndPrints(row: Row) throws {
        let expected = try row.build()
        let parsed = try QueryParams(restParameters: Dictionary(uniqueKeysWithValues: row.query))
        #expect(parsed == expected)
        let printed = expected.restParameters
        #expect(printed.map(\.0) == row.query.map(\.0))
        #expect(printed.map(\.1) == row.query.map(\.1))
    }

    @Test func toleratesWhitespaceAndIgnoresOtherParameters() throws {
        let parsed = try QueryParams(restParameters: [
            "orderBy": #""$value""#, "startAt": #"  "a" , "k" "#, "endAt": " 7 ", "limitToLast": " 4 ",
            "print": "pretty", "auth": "token",
        ])
        #expect(
            parsed
                == (try Self.d.ordered(by: .value).starting(at: .string("a"), childKey: "k").ending(at: .int(7))
                    .limited(toLast: 4)))
        #expect(try QueryParams(restParameters: ["print": "pretty", "format": "export"]) == .default)
        #expect(try QueryParams(restParameters: ["orderBy": #""$key""#, "limitToFirst": "0"]).limit?.count == 0)
    }

    @Test func rejectsInvalidParameters() {
        let bad: [([String: String], QueryError?)] = [
            (["startAt": "1"], .orderByRequired),
            (["limitToFirst": "1"], .orderByRequired),
            (["orderBy": "$key"], nil),
            (["orderBy": #""$foo""#], nil),
            (["orderBy": "5"], nil),
            (["orderBy": #""$key""#, "startAt": "a"], nil),
            (["orderBy": #""$key""#, "startAt": "1"], .keyIndexBoundNotString),
            (["orderBy": #""$key""#, "startAt": #""a","b""#], .keyIndexBoundWithKey),
            (["orderBy": #""$priority""#, "startAt": "true"], .invalidPriorityBound),
            (["orderBy": #""$value""#, "startAt": "{}"], nil),
            (["orderBy": #""$value""#, "startAt": #"1,k"#], nil),
            (["orderBy": #""$value""#, "startAt": #"1 "k""#], nil),
            (["orderBy": #""$value""#, "startAt": #""unterminated"#], nil),
            (["orderBy": #""$value""#, "startAt": "1", "startAfter": "2"], .startAlreadySet),
            (["orderBy": #""$value""#, "endAt": "1", "endBefore": "2"], .endAlreadySet),
            (["orderBy": #""$value""#, "startAt": "1", "equalTo": "2"], .startAlreadySet),
            (["orderBy": #""$value""#, "limitToFirst": "1", "limitToLast": "2"], .limitAlreadySet),
            (["orderBy": #""$value""#, "limitToFirst": "-1"], nil),
            (["orderBy": #""$value""#, "limitToFirst": "1.5"], nil),
            (["orderBy": #""$value""#, "limitToFirst": "2147483648"], .invalidLimit(2_147_483_648)),
        ]
        for (parameters, error) in bad {
            if let error {
                #expect(throws: error, "\(parameters)") { try QueryParams(restParameters: parameters) }
            } else {
                #expect(throws: QueryError.self, "\(parameters)") { try QueryParams(restParameters: parameters) }
            }
        }
    }
}
