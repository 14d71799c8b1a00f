import CanopyTree
import Testing

@Suite struct IndexTests {
    typealias F = QueryFixtures

    /// A node whose children sort differently under every index.
    static let data = F.object([
        ("a", F.object([("score", F.int(3)), ("n", F.object([("x", F.string("m"))]))], priority: .string("p"))),
        ("b", F.int(7, priority: .int(2))),
        ("c", F.object([("score", F.int(1))], priority: .int(2))),
        ("d", F.string("hello")),
        ("e", F.leaf(.bool(true), priority: .double(-1))),
        ("f", F.object([("n", F.object([("x", F.string("a"))]))])),
        ("10", F.object([("score", F.string("s"))])),
        ("9", F.leaf(.bool(false))),
    ])

    struct Row: Sendable, CustomTestStringConvertible {
        let index: Index
        let order: [String]
        var testDescription: String { index.description }
    }

    static let rows: [Row] = [
        // No priority (by key) < numbers < strings.
        Row(index: .priority, order: ["9", "10", "d", "f", "e", "b", "c", "a"]),
        Row(index: .key, order: ["9", "10", "a", "b", "c", "d", "e", "f"]),
        // false < true < 7 < "hello" < children (by key).
        Row(index: .value, order: ["9", "e", "b", "d", "10", "a", "c", "f"]),
        // Missing = null first (by key), then 1, 3, then "s".
        Row(index: .child("score"), order: ["9", "b", "d", "e", "f", "c", "a", "10"]),
        Row(index: .child("n/x"), order: ["9", "10", "b", "c", "d", "e", "f", "a"]),
    ]

    @Test(arguments: rows) func sortsChildren(row: Row) {
        let sorted = row.index.sortedChildren(of: Self.data)
        #expect(F.keys(sorted) == row.order)
        // compare() agrees with the sort, pairwise.
        for (i, a) in sorted.enumerated() {
            for (j, b) in sorted.enumerated() {
                #expect(row.index.compare(a, b).signum() == (i == j ? 0 : (i < j ? -1 : 1)))
            }
        }
    }

    @Test func leafHasNoChildren() {
        #expect(Index.value.sortedChildren(of: F.int(1)).isEmpty)
    }

    @Test func indexedValues() {
        let child = NamedNode(key: "k", node: F.object([("a", F.object([("b", F.int(4))]))], priority: .string("p")))
        #expect(Index.priority.indexedValue(of: child) == F.string("p"))
        #expect(Index.key.indexedValue(of: child) == F.string("k"))
        #expect(Index.value.indexedValue(of: child) == child.node)
        #expect(Index.child("a/b").indexedValue(of: child) == F.int(4))
        #expect(Index.child("missing").indexedValue(of: child) == .empty)
    }

    @Test func postsSortWhereTheirValueDoes() {
        let child = NamedNode(key: "m", node: F.object([("score", F.int(5))], priority: .int(5)))
        for index in [Index.priority, .child("score")] {
            #expect(index.compare(index.makePost(value: F.int(5), key: "m"), child) == 0)
            #expect(index.compare(index.makePost(value: F.int(5), key: .min), child) < 0)
            #expect(index.compare(index.makePost(value: F.int(5), key: .max), child) > 0)
            #expect(index.compare(index.makePost(value: F.int(6), key: .min), child) > 0)
            #expect(index.compare(index.makePost(value: .empty, key: .max), child) < 0)
        }
        #expect(
            Index.value.compare(Index.value.makePost(value: F.int(5), key: "a"), NamedNode(key: "b", node: F.int(5)))
                < 0)
        #expect(Index.key.makePost(value: F.string("m"), key: "ignored").key == "m")
        #expect(Index.key.makePost(value: F.int(1), key: "x") == NamedNode.min)
    }

    @Test func definedOnAndChanges() {
        let withPriority = F.int(1, priority: .int(1))
        #expect(Index.priority.isDefinedOn(withPriority))
        #expect(!Index.priority.isDefinedOn(F.int(1)))
        #expect(Index.key.isDefinedOn(.empty))
        #expect(Index.value.isDefinedOn(F.int(1)))
        #expect(Index.child("a").isDefinedOn(F.object([("a", F.int(1))])))
        #expect(!Index.child("a").isDefinedOn(F.object([("b", F.int(1))])))

        #expect(Index.priority.indexedValueChanged(from: F.int(1), to: withPriority))
        #expect(!Index.priority.indexedValueChanged(from: F.int(1), to: F.int(2)))
        #expect(Index.value.indexedValueChanged(from: F.int(1), to: F.int(2)))
        #expect(!Index.value.indexedValueChanged(from: F.int(1), to: F.leaf(.double(1))))
        #expect(!Index.key.indexedValueChanged(from: F.int(1), to: F.string("x")))
        #expect(Index.child("a").indexedValueChanged(from: .empty, to: F.object([("a", F.int(1))])))
        #expect(!Index.child("a").indexedValueChanged(from: F.int(3), to: F.object([("b", F.int(1))])))
    }

    @Test func wireAndRESTStrings() throws {
        let table: [(Index, String?, String)] = [
            (.priority, nil, "$priority"),
            (.key, ".key", "$key"),
            (.value, ".value", "$value"),
            (.child("a"), "a", "a"),
            (.child("a/b"), "a/b", "a/b"),
        ]
        for (index, wire, rest) in table {
            #expect(index.wireString == wire)
            #expect(index.restString == rest)
            if let wire { #expect(try Index(wireString: wire) == index) }
            #expect(try Index(restString: rest) == index)
        }
        #expect(try Index(wireString: ".priority") == .priority)
        #expect(try Index(restString: "/a/b/") == .child("a/b"))
        for bad in ["", "/", "$key", "a/$b", "a.b", "a/[0]", "a#", "x\u{7F}"] {
            #expect(throws: QueryError.invalidIndexPath(bad)) { try Index(wireString: bad) }
        }
        #expect(throws: QueryError.self) { try Index(restString: "$other") }
    }
}
