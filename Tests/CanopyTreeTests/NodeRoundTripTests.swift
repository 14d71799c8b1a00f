import CanopyTestSupport
import CanopyTree
import Testing

/// Random nodes (seeded) through export form and plain form, serialized and parsed back.
@Suite struct NodeRoundTripTests {
    static let trickyKeys = [
        "a", "b", "0", "1", "2", "01", "-1", "10", "2147483647", "2147483648", "-2147483649",
        "é", "e\u{301}", "\u{1F600}", "\u{FFFD}", "\u{E000}", "with space", "quote\"d", "back\\slash",
        "x:y", "-NjEtLV-abcdefghijkl", "🌲tree", "ключ", "😀😀",
    ]
    static let trickyStrings = [
        "", "plain", "line\nbreak", "tab\t", "nul\u{0}", "quote\"", "\\", "é", "e\u{301}", "\u{1F600}",
        "\u{7F}", "</script>", "\u{2028}\u{2029}", "{\".sv\":\"timestamp\"}",
    ]

    struct Generator {
        var random: SeededGenerator

        mutating func pick<T>(_ items: [T]) -> T {
            items[Int(random.next() % UInt64(items.count))]
        }

        mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        mutating func leafValue() -> LeafValue {
            switch random.next() % 9 {
            case 0: return .bool(chance(50))
            case 1: return .int(Int64(bitPattern: random.next()))
            case 2: return .int(Int64(random.next() % 2000) - 1000)
            case 3: return .int(pick([Int64.min, Int64.max, 0, -1, 9_007_199_254_740_993]))
            case 4:
                let d = Double(bitPattern: random.next())
                return .double(d.isFinite ? d : 0.5)
            case 5: return .double(Double(Int64(random.next() % 100_000) - 50_000) / 64)
            case 6: return .serverValue(pick([.timestamp, .incrementInt(-3), .incrementDouble(0.25)]))
            case 7: return .string(pick(NodeRoundTripTests.trickyKeys))
            default: return .string(pick(NodeRoundTripTests.trickyStrings))
            }
        }

        mutating func priority() -> LeafValue? {
            switch random.next() % 6 {
            case 0: return .int(Int64(random.next() % 100) - 50)
            case 1: return .double(Double(random.next() % 1000) / 8)
            case 2: return .string(pick(NodeRoundTripTests.trickyStrings))
            case 3: return .serverValue(.timestamp)
            default: return nil
            }
        }

        mutating func node(depth: Int) -> Node {
            if depth >= 5 || chance(35) {
                return Node(leaf: leafValue(), priority: priority())
            }
            var entries: [(ChildKey, Node)] = []
            for _ in 0..<(1 + random.next() % 5) {
                entries.append((ChildKey(pick(NodeRoundTripTests.trickyKeys)), node(depth: depth + 1)))
            }
            return Node(children: ChildMap(entries), priority: priority())
        }
    }

    /// The node without any priority.
    private func stripped(_ node: Node) -> Node {
        switch node.content {
        case .leaf(let value): return Node(leaf: value)
        case .children(let map): return Node(children: ChildMap(map.entries.map { ($0, stripped($1)) }))
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func exportFormRoundTrip(seed: UInt64) throws {
        var generator = Generator(random: SeededGenerator(seed: seed))
        for _ in 0..<150 {
            let node = generator.node(depth: 0)
            let text = node.exportJSON().serialized()
            let back = try Node(jsonText: text)
            #expect(back == node, "\(text)")
            #expect(back.hash == node.hash)
            // The plain form keeps everything but priorities.
            let plain = try Node(jsonText: node.valueJSON().serialized())
            #expect(plain == stripped(node), "\(text)")
        }
    }

    @Test func randomNodesRespectInvariants() {
        var generator = Generator(random: SeededGenerator(seed: 99))
        for _ in 0..<200 {
            let node = generator.node(depth: 0)
            #expect(node.hash.utf8.count == 28)
            // Export form never contains arrays.
            #expect(!containsArray(node.exportJSON()))
        }
    }

    private func containsArray(_ json: JSONValue) -> Bool {
        switch json {
        case .array: return true
        case .object(let members): return members.contains { containsArray($0.value) }
        default: return false
        }
    }

    @Test func jsonTextErrors() {
        #expect(throws: JSONError.self) { try Node(jsonText: "{\"a\": }") }
        #expect(throws: TreeError.valueWithChildren(path: "/")) { try Node(jsonText: #"{".value": 1, "a": 2}"#) }
        #expect(throws: Never.self) {
            try Node(jsonText: #"{"a": {".value": 1, ".priority": 5}, ".priority": "p", "b": true}"#)
        }
    }

    @Test func jsonTextExample() throws {
        let node = try Node(jsonText: #"{"a": {".value": 1, ".priority": 5}, ".priority": "p", "b": true}"#)
        #expect(node.exportJSON().serialized() == #"{"a":{".value":1,".priority":5},"b":true,".priority":"p"}"#)
        #expect(node.valueJSON().serialized() == #"{"a":1,"b":true}"#)
        #expect(try Node(jsonText: #"{"0":"a","1":"b","3":"d"}"#).valueJSON().serialized() == #"["a","b",null,"d"]"#)
    }
}
