import CanopyTestSupport
import CanopyTree
import Testing

@Suite struct JSONSerializerTests {
    @Test func compactStructure() {
        let value = JSONValue.object([
            JSONMember("a", .int(1)),
            JSONMember("b", .array([.bool(true), .null, .string("x"), .array([]), .object([])])),
            JSONMember("", .bool(false)),
        ])
        #expect(value.serialized() == #"{"a":1,"b":[true,null,"x",[],{}],"":false}"#)
        #expect(value.serializedBytes() == Array(value.serialized().utf8))
    }

    @Test func stringEscapes() {
        let text = "\"\\\n\t\r\u{08}\u{0C}\u{0}\u{01}\u{1F}\u{7F}/é😀\u{2028}"
        #expect(JSONValue.string(text).serialized() == #""\"\\\n\t\r\b\f\u0000\u0001\u001f"# + "\u{7F}/é😀\u{2028}\"")
        #expect(JSONValue.object([JSONMember("k\"ey", .string(""))]).serialized() == #"{"k\"ey":""}"#)
    }

    @Test func integers() {
        #expect(JSONValue.int(0).serialized() == "0")
        #expect(JSONValue.int(-1).serialized() == "-1")
        #expect(JSONValue.int(Int64.max).serialized() == "9223372036854775807")
        #expect(JSONValue.int(Int64.min).serialized() == "-9223372036854775808")
    }

    @Test func doubles() {
        let cases: [(Double, String)] = [
            (3.0, "3"), (-0.0, "-0"), (0.0, "0"), (1.5, "1.5"), (0.1, "0.1"), (-2.5e-8, "-2.5e-08"),
            (1e21, "1e+21"), (1e-7, "1e-07"), (9_007_199_254_740_992, "9007199254740992"),
            (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (Double.leastNonzeroMagnitude, "5e-324"), (123_456.789, "123456.789"),
            (-1e15, "-1000000000000000"), (0.30000000000000004, "0.30000000000000004"),
        ]
        for (number, expected) in cases {
            #expect(JSONValue.double(number).serialized() == expected)
        }
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(
            JSONValue.array([.double(.infinity), .double(-.infinity), .double(.nan)]).serialized() == "[null,null,null]"
        )
    }

    @Test func pretty() {
        let value = JSONValue.object([
            JSONMember("a", .int(1)),
            JSONMember("b", .array([.int(1), .object([JSONMember("c", .null)])])),
            JSONMember("e", .array([])),
            JSONMember("f", .object([])),
        ])
        let expected = """
            {
              "a": 1,
              "b": [
                1,
                {
                  "c": null
                }
              ],
              "e": [],
              "f": {}
            }
            """
        #expect(value.serialized(pretty: true) == expected)
        #expect(value.serialized(pretty: false) == value.serialized())
        #expect(JSONValue.string("x").serialized(pretty: true) == #""x""#)
    }

    @Test func writerAppendsSeveralValues() {
        var serializer = JSONSerializer(reservingCapacity: 0)
        serializer.write(.int(1))
        serializer.write(.string("a"))
        // Enough to grow the buffer several times.
        let long = String(repeating: "é\n", count: 500)
        serializer.write(.array([.string(long), .double(-1.25)]))
        #expect(serializer.byteCount == 1 + 3 + 2 + 500 * 4 + 2 + 6)
        let text = serializer.makeString()
        let expected = #"1"a"[""# + String(repeating: #"é\n"#, count: 500) + #"",-1.25]"#
        #expect(text == expected)
    }

    // MARK: Round trip

    @Test func randomizedRoundTrip() throws {
        var random = SeededGenerator(seed: 0x5EED)
        for iteration in 0..<400 {
            let value = randomValue(depth: 0, random: &random)
            for pretty in [false, true] {
                let text = value.serialized(pretty: pretty)
                let reparsed = try JSONParser.parse(text)
                #expect(Self.identical(reparsed, value), "iteration \(iteration) pretty \(pretty): \(text)")
                let fromBytes = try JSONParser.parse(value.serializedBytes(pretty: pretty))
                #expect(Self.identical(fromBytes, value))
                // Serialization is canonical: a second round gives the same text.
                #expect(reparsed.serialized(pretty: pretty) == text)
            }
        }
    }

    private static let trickyScalars: [Unicode.Scalar] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}",
        "\u{80}", "é", "ß", "\u{2028}", "\u{2029}", "中", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}", "😀",
        "𝄞", "\u{10FFFF}", "\u{E000}", "\u{0301}",
    ]

    private static let trickyDoubles: [Double] = [
        0, -0.0, 0.1, -0.5, 1e21, 1e-7, Double.leastNonzeroMagnitude, 2.2250738585072014e-308, 1.7976931348623157e308,
        -1.7976931348623157e308, 9_007_199_254_740_992, 9_007_199_254_740_994, 9.223372036854775807e18,
        1.8446744073709552e19, 123_456.789, 0.30000000000000004, 1e100, 3.0,
    ]

    private func randomString(random: inout SeededGenerator) -> String {
        let length = Int(random.next() % 12)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            if random.next() % 3 == 0 {
                scalars.append(Self.trickyScalars[Int(random.next() % UInt64(Self.trickyScalars.count))])
            } else if let scalar = Unicode.Scalar(UInt32(random.next() % 0x11_0000)) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    private func randomNumber(random: inout SeededGenerator) -> JSONValue {
        switch random.next() % 6 {
        case 0: return .int(Int64(bitPattern: random.next()))
        case 1: return .int(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 2: return .int([Int64.min, Int64.max, 0, -1, 1 << 53, -(1 << 53) - 1][Int(random.next() % 6)])
        case 3: return .double(Self.trickyDoubles[Int(random.next() % UInt64(Self.trickyDoubles.count))])
        case 4:
            return .double(
                Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) * (random.next() % 2 == 0 ? 1 : -1))
        default: return .double(Double(Int64(bitPattern: random.next()) >> 20) / 1000)
        }
    }

    private func randomValue(depth: Int, random: inout SeededGenerator) -> JSONValue {
        let choice = depth >= 5 ? random.next() % 5 : random.next() % 7
        switch choice {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2, 3: return randomNumber(random: &random)
        case 4: return .string(randomString(random: &random))
        case 5:
            let count = Int(random.next() % 6)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, random: &random) })
        default:
            let count = Int(random.next() % 6)
            return .object(
                (0..<count).map { _ in
                    JSONMember(randomString(random: &random), randomValue(depth: depth + 1, random: &random))
                })
        }
    }

    /// Equality that also distinguishes `-0.0` from `0` and requires bit-identical doubles;
    /// an integral double may come back as the equal `.int`.
    private static func identical(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)):
            return b.sign == .plus || a != 0 ? Double(a) == b && Int64(exactly: b) == a : false
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && identical($0.value, $1.value) }
        default: return lhs == rhs
        }
    }
}
