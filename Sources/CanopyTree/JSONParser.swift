/// A strict RFC 8259 parser from UTF-8 bytes to ``JSONValue``.
///
/// The parser accepts exactly one JSON value surrounded by optional whitespace and rejects
/// everything else with a ``JSONError`` naming the byte offset: invalid UTF-8, unescaped
/// control characters, unknown escapes, unpaired surrogate escapes, leading zeros, trailing
/// commas, trailing garbage and nesting deeper than ``maximumDepth``.
///
/// Numbers: a literal without fraction or exponent that fits in `Int64` becomes
/// ``JSONValue/int(_:)``; every other number becomes a correctly rounded
/// ``JSONValue/double(_:)``. The literal `-0` becomes `.double(-0.0)` so that the sign of
/// zero survives (the node hash distinguishes `-0.0` from `0`). A number whose magnitude
/// overflows `Double` is an error, because JSON cannot carry infinities.
///
/// Objects keep every member in document order, including repeated keys; the
/// ``JSONValue`` subscript reads the last one.
public struct JSONParser: ~Copyable {
    /// The deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 1000

    /// Parses one JSON document from UTF-8 bytes.
    ///
    /// Error offsets count from the first byte of `bytes` (also for slices). Contiguous
    /// collections (`[UInt8]`, `ArraySlice`, `Data`, a native string's `utf8`) are read in
    /// place; others are copied first.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) -> JSONValue in try parse(buffer: buffer) }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        let result = copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) -> JSONValue in try parse(buffer: buffer) }
        }
        return try result.get()
    }

    /// Parses one JSON document from a string's UTF-8.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(text.utf8)
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw JSONError(.unexpectedEnd, offset: 0)
        }
        var parser = JSONParser(base: base, end: buffer.count)
        return try parser.parseDocument()
    }

    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var index = 0
    private var depth = 0
    /// Reused buffer for decoding strings that contain escapes.
    private var scratch: [UInt8] = []
    /// Elements of the arrays being parsed.
    private var elements = JSONParseStack<JSONValue>()
    /// Members of the objects being parsed.
    private var members = JSONParseStack<JSONMember>()

    private init(base: UnsafePointer<UInt8>, end: Int) {
        self.base = base
        self.end = end
    }

    // MARK: Structure

    private mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < end { throw JSONError(.trailingCharacters, offset: index) }
        return value
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < end {
            let byte = base[index]
            guard byte == .space || byte == .newline || byte == .carriageReturn || byte == .tab else {
                return
            }
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
        switch base[index] {
        case .quote: return .string(try parseString())
        case .openBrace: return try parseObject()
        case .openBracket: return try parseArray()
        case .minus, .zero ... .nine: return try parseNumber()
        case .letterT:
            try expectLiteral(Self.trueLiteral)
            return .bool(true)
        case .letterF:
            try expectLiteral(Self.falseLiteral)
            return .bool(false)
        case .letterN:
            try expectLiteral(Self.nullLiteral)
            return .null
        case let byte:
            throw JSONError(.unexpectedCharacter(byte), offset: index)
        }
    }

    private static let trueLiteral: [UInt8] = Array("true".utf8)
    private static let falseLiteral: [UInt8] = Array("false".utf8)
    private static let nullLiteral: [UInt8] = Array("null".utf8)

    private mutating func expectLiteral(_ literal: [UInt8]) throws(JSONError) {
        for expected in literal {
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            let byte = base[index]
            guard byte == expected else { throw JSONError(.unexpectedCharacter(byte), offset: index) }
            index += 1
        }
    }

    private mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > Self.maximumDepth { throw JSONError(.nestingTooDeep, offset: index) }
        index += 1
        skipWhitespace()
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        if index < end && base[index] == .closeBracket {
            index += 1
            depth -= 1
            return .array([])
        }
        let start = elements.count
        while true {
            elements.push(try parseValue())
            if try closesContainer(with: .closeBracket) { return .array(elements.pop(from: start)) }
        }
    }

    /// After an element or member: consumes a `,` (returning `false`) or the container's
    /// closing byte (returning `true` and leaving the container); anything else is an error.
    @inline(__always)
    private mutating func closesContainer(with closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
        let byte = base[index]
        if byte == .comma {
            index += 1
            skipWhitespace()
            return false
        }
        guard byte == closing else { throw JSONError(.unexpectedCharacter(byte), offset: index) }
        index += 1
        depth -= 1
        return true
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        if index < end && base[index] == .closeBrace {
            index += 1
            depth -= 1
            return .object([])
        }
        let start = members.count
        while true {
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            guard base[index] == .quote else {
                throw JSONError(.unexpectedCharacter(base[index]), offset: index)
            }
            let key = try parseString()
            skipWhitespace()
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            guard base[index] == .colon else {
                throw JSONError(.unexpectedCharacter(base[index]), offset: index)
            }
            index += 1
            skipWhitespace()
            members.push(JSONMember(key, try parseValue()))
            if try closesContainer(with: .closeBrace) { return .object(members.pop(from: start)) }
        }
    }

    // MARK: Strings

    /// Parses the string whose opening quote is at `index`.
    private mutating func parseString() throws(JSONError) -> String {
        let quote = index
        let start = index + 1
        var highBits: UInt64 = 0
        let stop = plainRunEnd(from: start, highBits: &highBits)
        guard stop < end else {
            try checkUTF8(from: start, to: stop)
            throw JSONError(.unterminatedString, offset: quote)
        }
        switch base[stop] {
        case .quote:
            index = stop + 1
            let bytes = UnsafeBufferPointer(start: base + start, count: stop - start)
            if highBits & JSONWordScan.highBitLanes == 0 { return String(decoding: bytes, as: UTF8.self) }
            guard let string = String(validating: bytes, as: UTF8.self) else {
                throw JSONError(.invalidUTF8, offset: Self.firstInvalidUTF8(base, start, stop) ?? start)
            }
            return string
        case .backslash:
            index = stop
            return try parseEscapedString(quote: quote, start: start)
        default:
            try checkUTF8(from: start, to: stop)
            throw JSONError(.controlCharacterInString, offset: stop)
        }
    }

    /// Continues a string at the backslash at `index`, decoding into ``scratch``.
    private mutating func parseEscapedString(quote: Int, start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var highBits: UInt64 = 0
        var runStart = start
        while true {
            // `index` is at a quote, backslash or control character ending a plain run.
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
            switch base[index] {
            case .quote:
                index += 1
                if highBits & JSONWordScan.highBitLanes == 0 { return String(decoding: scratch, as: UTF8.self) }
                guard let string = String(validating: scratch, as: UTF8.self) else {
                    throw JSONError(.invalidUTF8, offset: Self.firstInvalidUTF8(base, start, index - 1) ?? start)
                }
                return string
            case .backslash:
                try decodeEscape(quote: quote)
            default:
                try checkUTF8(from: start, to: index)
                throw JSONError(.controlCharacterInString, offset: index)
            }
            runStart = index
            index = plainRunEnd(from: index, highBits: &highBits)
            guard index < end else {
                try checkUTF8(from: start, to: index)
                throw JSONError(.unterminatedString, offset: quote)
            }
        }
    }

    /// The offset of the first quote, backslash or control character at or after `start`
    /// (or `end`), OR-ing the bytes passed over into `highBits` to detect non-ASCII text.
    /// Eight bytes are examined at a time while none of them is special.
    @inline(__always)
    private func plainRunEnd(from start: Int, highBits: inout UInt64) -> Int {
        var position = start
        while position &+ 8 <= end {
            let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
            if JSONWordScan.hasSpecialByte(word) { break }
            highBits |= word
            position &+= 8
        }
        while position < end {
            let byte = base[position]
            if byte == .quote || byte == .backslash || byte < 0x20 { break }
            highBits |= UInt64(byte)
            position &+= 1
        }
        return position
    }

    /// Decodes the escape sequence whose backslash is at `index` into ``scratch``; `quote`
    /// is the string's opening quote, reported when the input ends inside the escape.
    private mutating func decodeEscape(quote: Int) throws(JSONError) {
        let backslash = index
        guard index + 1 < end else { throw JSONError(.unterminatedString, offset: quote) }
        let decoded: UInt8
        switch base[index + 1] {
        case .quote: decoded = .quote
        case .backslash: decoded = .backslash
        case .slash: decoded = .slash
        case .letterB: decoded = 0x08
        case .letterF: decoded = 0x0C
        case .letterN: decoded = .newline
        case .letterR: decoded = .carriageReturn
        case .letterT: decoded = .tab
        case .letterU:
            index += 2
            let unit = try readHex4(backslash: backslash, quote: quote)
            let scalar: UInt32
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < end, base[index] == .backslash, base[index + 1] == .letterU else {
                    throw JSONError(.loneSurrogate, offset: backslash)
                }
                let lowBackslash = index
                index += 2
                let low = try readHex4(backslash: lowBackslash, quote: quote)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONError(.loneSurrogate, offset: backslash) }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw JSONError(.loneSurrogate, offset: backslash)
            default:
                scalar = unit
            }
            appendUTF8(scalar)
            return
        default:
            throw JSONError(.invalidEscape, offset: backslash)
        }
        scratch.append(decoded)
        index += 2
    }

    /// Reads the four hexadecimal digits of the `\u` escape at `backslash`.
    private mutating func readHex4(backslash: Int, quote: Int) throws(JSONError) -> UInt32 {
        guard index + 4 <= end else {
            for position in index..<end where Self.hexValue(base[position]) == nil {
                throw JSONError(.invalidUnicodeEscape, offset: backslash)
            }
            throw JSONError(.unterminatedString, offset: quote)
        }
        var value: UInt32 = 0
        for position in index..<index + 4 {
            guard let digit = Self.hexValue(base[position]) else {
                throw JSONError(.invalidUnicodeEscape, offset: backslash)
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case .zero ... .nine: return UInt32(byte &- .zero)
        case 0x61...0x66: return UInt32(byte &- 0x61 &+ 10)
        case 0x41...0x46: return UInt32(byte &- 0x41 &+ 10)
        default: return nil
        }
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Throws ``JSONError/Reason/invalidUTF8`` if `start..<stop` is not well-formed UTF-8.
    private func checkUTF8(from start: Int, to stop: Int) throws(JSONError) {
        if let offset = Self.firstInvalidUTF8(base, start, stop) {
            throw JSONError(.invalidUTF8, offset: offset)
        }
    }

    /// The offset of the first ill-formed UTF-8 sequence in `start..<stop` (Unicode Table
    /// 3-7), or `nil` when the range is well formed. Sequences cut off at `stop` count as
    /// ill-formed.
    private static func firstInvalidUTF8(_ base: UnsafePointer<UInt8>, _ start: Int, _ stop: Int) -> Int? {
        var position = start
        while position < stop {
            let lead = base[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                secondRange = 0x80...0x9F
            case 0xF0:
                length = 4
                secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                secondRange = 0x80...0x8F
            default: return position
            }
            guard position + length <= stop, secondRange.contains(base[position + 1]) else { return position }
            for continuation in position + 2..<position + length where base[continuation] & 0xC0 != 0x80 {
                return position
            }
            position += length
        }
        return nil
    }

    // MARK: Numbers

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses the number starting at `index` (a `-` or a digit).
    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        let negative = base[index] == .minus
        if negative { index += 1 }
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }

        // Up to 19 significant digits are accumulated exactly; `truncated` marks more.
        var mantissa: UInt64 = 0
        var exponent = 0
        var truncated = false
        var integral = true

        let first = base[index]
        if first == .zero {
            index += 1
            if index < end && base[index] &- .zero < 10 { throw JSONError(.leadingZero, offset: start) }
        } else if first &- .zero < 10 {
            while index < end {
                let digit = base[index] &- .zero
                guard digit < 10 else { break }
                if mantissa < 1_000_000_000_000_000_000 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                } else {
                    truncated = true
                    exponent += 1
                }
                index += 1
            }
        } else {
            throw JSONError(.unexpectedCharacter(first), offset: index)
        }

        if index < end && base[index] == .period {
            integral = false
            index += 1
            try expectDigit()
            while index < end {
                let digit = base[index] &- .zero
                guard digit < 10 else { break }
                if mantissa < 1_000_000_000_000_000_000 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    exponent -= 1
                } else if digit != 0 {
                    truncated = true
                }
                index += 1
            }
        }

        if index < end && (base[index] == .letterE || base[index] == .capitalE) {
            integral = false
            index += 1
            var exponentNegative = false
            if index < end && (base[index] == .plus || base[index] == .minus) {
                exponentNegative = base[index] == .minus
                index += 1
            }
            try expectDigit()
            var written = 0
            while index < end {
                let digit = base[index] &- .zero
                guard digit < 10 else { break }
                if written < 100_000 { written = written * 10 + Int(digit) }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }

        if integral && !truncated {
            if negative {
                if mantissa == 0 { return .double(-0.0) }
                if mantissa <= UInt64(Int64.max) + 1 { return .int(Int64(bitPattern: 0 &- mantissa)) }
            } else if mantissa <= UInt64(Int64.max) {
                return .int(Int64(mantissa))
            }
        }

        // Exact fast path: both the mantissa and the power of ten are exact doubles, so one
        // multiplication or division rounds correctly.
        if !truncated && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            let magnitude = Double(mantissa)
            let value =
                exponent < 0
                ? magnitude / Self.powersOfTen[-exponent]
                : magnitude * Self.powersOfTen[exponent]
            return .double(negative ? -value : value)
        }

        let literal = String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw JSONError(.numberOutOfRange, offset: start)
        }
        return .double(value)
    }

    private mutating func expectDigit() throws(JSONError) {
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
        guard base[index] &- .zero < 10 else { throw JSONError(.unexpectedCharacter(base[index]), offset: index) }
    }
}

extension UInt8 {
    fileprivate static let tab: UInt8 = 0x09
    fileprivate static let newline: UInt8 = 0x0A
    fileprivate static let carriageReturn: UInt8 = 0x0D
    fileprivate static let space: UInt8 = 0x20
    fileprivate static let quote: UInt8 = 0x22
    fileprivate static let plus: UInt8 = 0x2B
    fileprivate static let comma: UInt8 = 0x2C
    fileprivate static let minus: UInt8 = 0x2D
    fileprivate static let period: UInt8 = 0x2E
    fileprivate static let slash: UInt8 = 0x2F
    fileprivate static let zero: UInt8 = 0x30
    fileprivate static let nine: UInt8 = 0x39
    fileprivate static let colon: UInt8 = 0x3A
    fileprivate static let capitalE: UInt8 = 0x45
    fileprivate static let openBracket: UInt8 = 0x5B
    fileprivate static let backslash: UInt8 = 0x5C
    fileprivate static let closeBracket: UInt8 = 0x5D
    fileprivate static let letterB: UInt8 = 0x62
    fileprivate static let letterE: UInt8 = 0x65
    fileprivate static let letterF: UInt8 = 0x66
    fileprivate static let letterN: UInt8 = 0x6E
    fileprivate static let letterR: UInt8 = 0x72
    fileprivate static let letterT: UInt8 = 0x74
    fileprivate static let letterU: UInt8 = 0x75
    fileprivate static let openBrace: UInt8 = 0x7B
    fileprivate static let closeBrace: UInt8 = 0x7D
}
