import CanopyTree
import Synchronization
import Testing

@Suite struct ServerValueResolverTests {
    typealias F = QueryFixtures

    /// A clock that counts how often it is read and returns 1000, 2000, ….
    final class CountingClock: Sendable {
        let reads = Mutex(0)
        func now() -> Int64 {
            reads.withLock {
                $0 += 1
                return Int64($0) * 1000
            }
        }
    }

    static let ts = #"{".sv":"timestamp"}"#
    static func inc(_ n: String) -> String { #"{".sv":{"increment":\#(n)}}"# }

    struct IncrementRow: Sendable, CustomTestStringConvertible {
        let existing: Node
        let delta: ServerValue
        let expected: LeafValue
        var testDescription: String { "\(expected)" }
    }

    static let incrementRows: [IncrementRow] = [
        IncrementRow(existing: F.int(5), delta: .incrementInt(3), expected: .int(8)),
        IncrementRow(existing: F.int(-5, priority: .string("p")), delta: .incrementInt(-3), expected: .int(-8)),
        IncrementRow(existing: F.int(.max), delta: .incrementInt(1), expected: .double(9_223_372_036_854_775_808.0)),
        IncrementRow(existing: F.int(.min), delta: .incrementInt(-1), expected: .double(-9_223_372_036_854_775_809.0)),
        IncrementRow(existing: F.leaf(.double(1.5)), delta: .incrementInt(2), expected: .double(3.5)),
        IncrementRow(existing: F.int(1), delta: .incrementDouble(0.25), expected: .double(1.25)),
        IncrementRow(
            existing: F.leaf(.double(.greatestFiniteMagnitude)), delta: .incrementDouble(.greatestFiniteMagnitude),
            expected: .double(.greatestFiniteMagnitude)),
        IncrementRow(existing: .empty, delta: .incrementInt(7), expected: .int(7)),
        IncrementRow(existing: .empty, delta: .incrementDouble(0.5), expected: .double(0.5)),
        IncrementRow(existing: F.string("10"), delta: .incrementInt(7), expected: .int(7)),
        IncrementRow(existing: F.leaf(.bool(true)), delta: .incrementInt(7), expected: .int(7)),
        IncrementRow(existing: F.object([("a", F.int(1))]), delta: .incrementDouble(2.5), expected: .double(2.5)),
        IncrementRow(existing: F.leaf(.serverValue(.timestamp)), delta: .incrementInt(1), expected: .int(1)),
    ]

    @Test(arguments: incrementRows) func increments(row: IncrementRow) {
        let result = ServerValueResolver.resolve(row.delta, existing: row.existing, now: 0)
        #expect(result == row.expected)
        // Integer results stay integers; others are doubles.
        switch (result, row.expected) {
        case (.int, .int), (.double, .double): break
        default: Issue.record("kind differs: \(result) vs \(row.expected)")
        }
    }

    @Test func overwriteResolvesEverywhereWithOneTime() throws {
        let clock = CountingClock()
        let resolver = ServerValueResolver(clock: { clock.now() })
        let existing = try F.parse(#"{"count": 10, "deep": {"n": 1.5}, "p": {".value": 1, ".priority": 4}}"#)
        let write = try F.parse(
            #"""
            {"a": \#(Self.ts), "b": {"c": \#(Self.ts)}, "count": \#(Self.inc("2")),
             "deep": {"n": \#(Self.inc("1")), "m": "plain"},
             "p": {".value": \#(Self.inc("1")), ".priority": \#(Self.inc("1"))},
             "q": {".value": true, ".priority": \#(Self.ts)},
             ".priority": \#(Self.ts)}
            """#)
        let result = resolver.resolve(write, existing: existing)
        let expected = try F.parse(
            #"""
            {"a": 1000, "b": {"c": 1000}, "count": 12, "deep": {"n": 2.5, "m": "plain"},
             "p": {".value": 2, ".priority": 5}, "q": {".value": true, ".priority": 1000}, ".priority": 1000}
            """#)
        #expect(result == expected)
        #expect(result.child("count").leafValue == .int(12))
        #expect(clock.reads.withLock { $0 } == 1)
    }

    @Test func overwriteAtPathInTree() throws {
        let tree = try F.parse(#"{"users": {"alice": {"visits": 41}}}"#)
        let resolver = ServerValueResolver(clock: { 5 })
        let write = try F.parse(#"{"visits": \#(Self.inc("1")), "seen": \#(Self.ts)}"#)
        let result = resolver.resolve(write, at: "users/alice", in: tree)
        #expect(result == (try F.parse(#"{"visits": 42, "seen": 5}"#)))
        // Against a location without data, increments start from zero.
        #expect(resolver.resolve(write, at: "users/bob", in: tree) == (try F.parse(#"{"visits": 1, "seen": 5}"#)))
    }

    @Test func mergeResolvesEachChildAgainstItsOwnLocation() throws {
        let clock = CountingClock()
        let resolver = ServerValueResolver(clock: { clock.now() })
        let tree = try F.parse(#"{"room": {"a": 1, "b": {"c": 10}, "d": {".value": "x", ".priority": 3}}}"#)
        let merge: [(path: Path, node: Node)] = [
            ("a", try F.parse(Self.inc("1"))),
            ("b/c", try F.parse(Self.inc("-20"))),
            ("d/.priority", try F.parse(Self.inc("1"))),
            ("e", try F.parse(Self.ts)),
            ("f", try F.parse(#"{"g": \#(Self.ts)}"#)),
        ]
        let result = resolver.resolveMerge(merge, at: "room", in: tree)
        #expect(result.map(\.path) == merge.map(\.path))
        #expect(result.map(\.node) == [F.int(2), F.int(-10), F.int(4), F.int(1000), F.object([("g", F.int(1000))])])
        #expect(clock.reads.withLock { $0 } == 1)
    }

    @Test func nodesWithoutPlaceholdersAreUnchanged() throws {
        let plain = try F.parse(#"{"a": 1, "b": {"c": "x", ".priority": 2}}"#)
        #expect(ServerValueResolver.resolve(plain, existing: .empty, now: 9) == plain)
        #expect(ServerValueResolver.resolve(.empty, existing: plain, now: 9) == .empty)
    }
}
