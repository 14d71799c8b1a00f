import CanopyTestSupport
import CanopyTree
import Testing

@Suite struct JSONParserTests {
    /// Parses `text`, recording a failure (and returning nil) if it throws.
    private func parsed(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
        do {
            return try JSONParser.parse(text)
        } catch {
            Issue.record("\(text) failed: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The error parsing `bytes` throws, recording a failure if it parses.
    private func failure(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> JSONError? {
        do {
            let value = try JSONParser.parse(bytes)
            Issue.record("parsed unexpectedly: \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    private func failure(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONError? {
        failure(Array(text.utf8), sourceLocation: sourceLocation)
    }

    private func double(_ value: JSONValue?) -> Double? {
        if case .double(let number) = value { return number }
        return nil
    }

    // MARK: Values

    @Test func literalsAndStructure() {
        #expect(parsed("null") == .null)
        #expect(parsed(" \t\r\ntrue\n") == .bool(true))
        #expect(parsed("false") == .bool(false))
        #expect(parsed("[]") == .array([]))
        #expect(parsed("{}") == .object([]))
        #expect(parsed(" [ 1 , \"a\" , [ ] , { } ] ") == .array([.int(1), .string("a"), .array([]), .object([])]))
        #expect(
            parsed(#"{"a": {"b": [null, false]}, "c": "d"}"#)
                == .object([
                    JSONMember("a", .object([JSONMember("b", .array([.null, .bool(false)]))])),
                    JSONMember("c", .string("d")),
                ])
        )
    }

    @Test func duplicateKeysAreKeptInOrder() {
        let value = parsed(#"{"k": 1, "x": 2, "k": 3}"#)
        #expect(value == .object([JSONMember("k", .int(1)), JSONMember("x", .int(2)), JSONMember("k", .int(3))]))
        #expect(value?["k"] == .int(3))
    }

    @Test func escapes() {
        #expect(parsed(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(parsed(#""\u0041\u00e9\u00E9\u4e2d\u0000""#) == .string("Aéé中\u{0}"))
        #expect(parsed(#""plain \u2028 and raw é✓""#) == .string("plain \u{2028} and raw é✓"))
        #expect(parsed(#""x\n""#)?.stringValue?.utf8.count == 2)
    }

    @Test func surrogatePairs() {
        #expect(parsed(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(parsed(#""a\ud834\udd1eb""#) == .string("a𝄞b"))
        #expect(parsed(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
        #expect(parsed("\"raw 😀 \\n\"") == .string("raw 😀 \n"))
    }

    @Test func integers() {
        #expect(parsed("0") == .int(0))
        #expect(parsed("-1") == .int(-1))
        #expect(parsed("9223372036854775807") == .int(Int64.max))
        #expect(parsed("-9223372036854775808") == .int(Int64.min))
        // 2^53 + 1 is not representable as a double but is an exact Int64.
        guard case .int(let beyond53) = parsed("9007199254740993") else {
            Issue.record("2^53+1 should be an int")
            return
        }
        #expect(beyond53 == 9_007_199_254_740_993)
        guard case .int(let twoTo53) = parsed("9007199254740992") else {
            Issue.record("2^53 should be an int")
            return
        }
        #expect(twoTo53 == 1 << 53)
    }

    @Test func numbersBeyondInt64BecomeDoubles() {
        #expect(double(parsed("9223372036854775808")) == 9_223_372_036_854_775_808.0)
        #expect(double(parsed("-9223372036854775809")) == -9_223_372_036_854_775_808.0)
        #expect(double(parsed("123456789012345678901234567890")) == 1.2345678901234568e29)
        #expect(double(parsed("18446744073709551616")) == 18_446_744_073_709_551_616.0)
    }

    @Test func doubles() {
        #expect(double(parsed("1.5")) == 1.5)
        #expect(double(parsed("-0.25")) == -0.25)
        #expect(double(parsed("1e2")) == 100)
        #expect(double(parsed("1E+2")) == 100)
        #expect(double(parsed("1.5e-3")) == 0.0015)
        #expect(double(parsed("0.1")) == 0.1)
        #expect(double(parsed("0.30000000000000004")) == 0.30000000000000004)
        #expect(double(parsed("1.0")) == 1.0)
        #expect(double(parsed("1.7976931348623157e308")) == Double.greatestFiniteMagnitude)
        #expect(double(parsed("4.9e-324")) == Double.leastNonzeroMagnitude)
        #expect(double(parsed("2.2250738585072014e-308")) == Double.leastNormalMagnitude)
        #expect(double(parsed("1e-400")) == 0)
        #expect(double(parsed("0e999999999999")) == 0)
        #expect(double(parsed("0.000000000000000000000000000001")) == 1e-30)
        #expect(double(parsed("100000000000000000000000.0e-3")) == 1e20)
    }

    @Test func doublesAreCorrectlyRounded() {
        // Exactly halfway between 1 and its successor: ties to even.
        #expect(double(parsed("1.00000000000000011102230246251565404236316680908203125")) == 1.0)
        #expect(double(parsed("1.00000000000000011102230246251565404236316680908203126")) == 1.0.nextUp)
        #expect(double(parsed("9007199254740993.0")) == 9_007_199_254_740_992)
        #expect(double(parsed("9007199254740995.0")) == 9_007_199_254_740_996)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            for text in [
                value.description, String(value * 1e-3),
                "\(generator.next() % 100_000).\(generator.next())e\(Int(generator.next() % 600) - 300)",
            ] {
                guard let expected = Double(text) else { continue }
                if expected.isFinite {
                    #expect(double(parsed(text)).map { $0.bitPattern == expected.bitPattern } == true, "\(text)")
                } else {
                    #expect(failure(text)?.reason == .numberOutOfRange)
                }
            }
        }
    }

    @Test func negativeZeroIsADouble() throws {
        for text in ["-0", "-0.0", "-0e5"] {
            let number = double(parsed(text))
            #expect(number == 0 && number?.sign == .minus, "\(text)")
        }
        #expect(parsed("0") == .int(0))
        #expect(double(parsed("0.0"))?.sign == .plus)
    }

    @Test func inputForms() throws {
        #expect(try JSONParser.parse([UInt8]("[1]".utf8)) == .array([.int(1)]))
        #expect(try JSONParser.parse("[1]".utf8.dropFirst(0)) == .array([.int(1)]))
        // A non-contiguous collection goes through a copy.
        #expect(try JSONParser.parse(Set([UInt8(ascii: "7")])) == .int(7))
        // Offsets count from the start of a slice.
        let slice = Array("xx[1,]".utf8)[2...]
        #expect(throws: JSONError(.unexpectedCharacter(UInt8(ascii: "]")), offset: 3)) { try JSONParser.parse(slice) }
        let bridged = "{\"é\": \"ü\"}"
        #expect(try JSONParser.parse(bridged)["é"] == .string("ü"))
    }

    @Test func largeAndNestedContainers() throws {
        // Enough elements and members to grow the parser's internal stacks several times,
        // with containers finishing while outer ones are still open.
        let inner = JSONValue.object(
            (0..<150).map { JSONMember("k\($0)", .array([.int(Int64($0)), .string("v\($0)")])) })
        let outer = JSONValue.array((0..<300).map { $0 % 2 == 0 ? inner : .array((0..<$0).map { .int(Int64($0)) }) })
        #expect(try JSONParser.parse(outer.serialized()) == outer)
        // A failure deep inside a large document leaves nothing behind and reports its offset.
        var text = outer.serialized()
        text.removeLast()
        #expect(failure(text) == JSONError(.unexpectedEnd, offset: text.utf8.count))
    }

    // MARK: Errors

    @Test func emptyInput() {
        #expect(failure("") == JSONError(.unexpectedEnd, offset: 0))
        #expect(failure("  \n") == JSONError(.unexpectedEnd, offset: 3))
    }

    @Test func unterminatedStrings() {
        #expect(failure(#"["abc"#) == JSONError(.unterminatedString, offset: 1))
        #expect(failure(#""abc\n"#) == JSONError(.unterminatedString, offset: 0))
        #expect(failure(#""abc\"#) == JSONError(.unterminatedString, offset: 0))
        #expect(failure(#""\u00"#) == JSONError(.unterminatedString, offset: 0))
    }

    @Test func badEscapes() {
        #expect(failure(#"["a\x"]"#) == JSONError(.invalidEscape, offset: 3))
        #expect(failure(#""\U0041""#) == JSONError(.invalidEscape, offset: 1))
        #expect(failure(#""\'""#) == JSONError(.invalidEscape, offset: 1))
        #expect(failure(#""ab\u12G4""#) == JSONError(.invalidUnicodeEscape, offset: 3))
        #expect(failure(#""\u12""#) == JSONError(.invalidUnicodeEscape, offset: 1))
    }

    @Test func loneSurrogates() {
        #expect(failure(#""\uD800""#) == JSONError(.loneSurrogate, offset: 1))
        #expect(failure(#""x\uDC00""#) == JSONError(.loneSurrogate, offset: 2))
        #expect(failure(#""\uD800\u0041""#) == JSONError(.loneSurrogate, offset: 1))
        #expect(failure(#""\uD800\uD800""#) == JSONError(.loneSurrogate, offset: 1))
        #expect(failure(#""\uD800x""#) == JSONError(.loneSurrogate, offset: 1))
        #expect(failure(#""\uDE00\uD83D""#) == JSONError(.loneSurrogate, offset: 1))
    }

    @Test func controlCharactersInStrings() {
        #expect(failure("\"a\tb\"") == JSONError(.controlCharacterInString, offset: 2))
        #expect(failure("\"a\\n\nb\"") == JSONError(.controlCharacterInString, offset: 4))
        #expect(failure([0x22, 0x00, 0x22]) == JSONError(.controlCharacterInString, offset: 1))
        #expect((try? JSONParser.parse("\"\u{7F}\"")) == .string("\u{7F}"))
    }

    @Test func trailingCommas() {
        #expect(failure("[1,2,]") == JSONError(.unexpectedCharacter(UInt8(ascii: "]")), offset: 5))
        #expect(failure(#"{"a":1,}"#) == JSONError(.unexpectedCharacter(UInt8(ascii: "}")), offset: 7))
        #expect(failure("[,]") == JSONError(.unexpectedCharacter(UInt8(ascii: ",")), offset: 1))
    }

    @Test func malformedNumbers() {
        #expect(failure("01") == JSONError(.leadingZero, offset: 0))
        #expect(failure("[-012]") == JSONError(.leadingZero, offset: 1))
        #expect(failure("00.5") == JSONError(.leadingZero, offset: 0))
        #expect(failure("1.") == JSONError(.unexpectedEnd, offset: 2))
        #expect(failure("1.e5") == JSONError(.unexpectedCharacter(UInt8(ascii: "e")), offset: 2))
        #expect(failure("1e") == JSONError(.unexpectedEnd, offset: 2))
        #expect(failure("1e+x") == JSONError(.unexpectedCharacter(UInt8(ascii: "x")), offset: 3))
        #expect(failure("-") == JSONError(.unexpectedEnd, offset: 1))
        #expect(failure("-a") == JSONError(.unexpectedCharacter(UInt8(ascii: "a")), offset: 1))
        #expect(failure(".5") == JSONError(.unexpectedCharacter(UInt8(ascii: ".")), offset: 0))
        #expect(failure("+1") == JSONError(.unexpectedCharacter(UInt8(ascii: "+")), offset: 0))
        #expect(failure("[1e400]") == JSONError(.numberOutOfRange, offset: 1))
        #expect(failure("-1e309") == JSONError(.numberOutOfRange, offset: 0))
        #expect(failure("NaN") == JSONError(.unexpectedCharacter(UInt8(ascii: "N")), offset: 0))
        #expect(failure("Infinity") == JSONError(.unexpectedCharacter(UInt8(ascii: "I")), offset: 0))
        #expect(failure("0x10") == JSONError(.trailingCharacters, offset: 1))
    }

    @Test func trailingGarbage() {
        #expect(failure("{} x") == JSONError(.trailingCharacters, offset: 3))
        #expect(failure("1 2") == JSONError(.trailingCharacters, offset: 2))
        #expect(failure("null,") == JSONError(.trailingCharacters, offset: 4))
        #expect(failure("[1]]") == JSONError(.trailingCharacters, offset: 3))
    }

    @Test func malformedStructure() {
        #expect(failure("tru") == JSONError(.unexpectedEnd, offset: 3))
        #expect(failure("trUe") == JSONError(.unexpectedCharacter(UInt8(ascii: "U")), offset: 2))
        #expect(failure(#"{"a" 1}"#) == JSONError(.unexpectedCharacter(UInt8(ascii: "1")), offset: 5))
        #expect(failure("{1:2}") == JSONError(.unexpectedCharacter(UInt8(ascii: "1")), offset: 1))
        #expect(failure("[1 2]") == JSONError(.unexpectedCharacter(UInt8(ascii: "2")), offset: 3))
        #expect(failure(#"{"a":1"#) == JSONError(.unexpectedEnd, offset: 6))
        #expect(failure("[") == JSONError(.unexpectedEnd, offset: 1))
        #expect(failure("]") == JSONError(.unexpectedCharacter(UInt8(ascii: "]")), offset: 0))
        #expect(failure("'a'") == JSONError(.unexpectedCharacter(UInt8(ascii: "'")), offset: 0))
    }

    @Test func nestingDepth() throws {
        let limit = JSONParser.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONParser.parse(deepest) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(failure(tooDeep) == JSONError(.nestingTooDeep, offset: limit))
        let objects = String(repeating: #"{"a":"#, count: limit + 1)
        #expect(failure(objects) == JSONError(.nestingTooDeep, offset: 5 * limit))
        // Hostile input far deeper than the limit fails cleanly instead of overflowing the stack.
        #expect(failure(String(repeating: "[", count: 1_000_000)) == JSONError(.nestingTooDeep, offset: limit))
    }

    @Test func invalidUTF8() {
        let quote = UInt8(ascii: "\"")
        #expect(failure([quote, 0x61, 0x62, 0xFF, quote]) == JSONError(.invalidUTF8, offset: 3))
        // Overlong encoding of "/".
        #expect(failure([quote, 0xC0, 0xAF, quote]) == JSONError(.invalidUTF8, offset: 1))
        // UTF-8 encoded surrogate U+D800.
        #expect(failure([quote, 0x61, 0xED, 0xA0, 0x80, quote]) == JSONError(.invalidUTF8, offset: 2))
        // Truncated three-byte sequence.
        #expect(failure([quote, 0xE2, 0x82, quote]) == JSONError(.invalidUTF8, offset: 1))
        // Beyond U+10FFFF.
        #expect(failure([quote, 0xF4, 0x90, 0x80, 0x80, quote]) == JSONError(.invalidUTF8, offset: 1))
        // Stray continuation byte after valid text, in a string with escapes.
        #expect(failure([quote, 0x5C, 0x6E, 0xC3, 0xA9, 0x80, quote]) == JSONError(.invalidUTF8, offset: 5))
        // Invalid UTF-8 before a control character is reported first.
        #expect(failure([quote, 0xFF, 0x0A, quote]) == JSONError(.invalidUTF8, offset: 1))
        // Outside strings a non-ASCII byte is just unexpected.
        #expect(failure([0xEF, 0xBB, 0xBF, 0x31]) == JSONError(.unexpectedCharacter(0xEF), offset: 0))
    }

    @Test func errorMessages() {
        #expect(
            JSONError(.unexpectedCharacter(UInt8(ascii: "x")), offset: 17).description
                == "unexpected character 'x' at byte 17")
        #expect(JSONError(.unexpectedCharacter(0xC3), offset: 2).description == "unexpected character 0xC3 at byte 2")
        #expect(JSONError(.unexpectedEnd, offset: 0).description == "unexpected end of input at byte 0")
        #expect(failure("[1,]")?.description == "unexpected character ']' at byte 3")
    }
}
