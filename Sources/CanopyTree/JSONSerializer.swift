/// Writes ``JSONValue``s as RFC 8259 JSON text into a UTF-8 byte buffer.
///
/// Output rules:
/// - Strings are escaped minimally: `"` and `\` with a backslash, the control characters
///   U+0000–U+001F as `\b \f \n \r \t` or `\u00XX`; everything else, non-ASCII included, is
///   written as raw UTF-8.
/// - Integers are written exactly. Doubles use the shortest text that parses back to the
///   same value; integral doubles have no `.0` (`3.0` → `3`, `-0.0` → `-0`), so they read
///   back as ``JSONValue/int(_:)`` where they fit, which compares equal. A non-finite double,
///   which JSON cannot carry, is written as `null`.
/// - The compact form has no whitespace. The pretty form puts each member and element on its
///   own line indented by two spaces per level, with `": "` after keys; empty arrays and
///   objects stay `[]` and `{}`.
public struct JSONSerializer {
    /// Whether output is indented over several lines.
    public let pretty: Bool
    /// The UTF-8 text written so far.
    public private(set) var bytes: [UInt8]
    private var indentLevel = 0

    /// Creates an empty serializer, reserving `capacity` bytes of output.
    public init(pretty: Bool = false, reservingCapacity capacity: Int = 256) {
        self.pretty = pretty
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends `value` as JSON text.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append(Self.nullText)
        case .bool(let flag): append(flag ? Self.trueText : Self.falseText)
        case .int(let integer): writeInteger(integer)
        case .double(let number): writeDouble(number)
        case .string(let string): writeString(string)
        case .array(let elements): writeArray(elements)
        case .object(let members): writeObject(members)
        }
    }

    private static let nullText: StaticString = "null"
    private static let trueText: StaticString = "true"
    private static let falseText: StaticString = "false"

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func writeArray(_ elements: [JSONValue]) {
        guard !elements.isEmpty else {
            bytes.append(0x5B)
            bytes.append(0x5D)
            return
        }
        bytes.append(0x5B)
        indentLevel += 1
        for (position, element) in elements.enumerated() {
            if position > 0 { bytes.append(0x2C) }
            if pretty { writeLineBreak() }
            write(element)
        }
        indentLevel -= 1
        if pretty { writeLineBreak() }
        bytes.append(0x5D)
    }

    private mutating func writeObject(_ members: [JSONMember]) {
        guard !members.isEmpty else {
            bytes.append(0x7B)
            bytes.append(0x7D)
            return
        }
        bytes.append(0x7B)
        indentLevel += 1
        for (position, member) in members.enumerated() {
            if position > 0 { bytes.append(0x2C) }
            if pretty { writeLineBreak() }
            writeString(member.key)
            bytes.append(0x3A)
            if pretty { bytes.append(0x20) }
            write(member.value)
        }
        indentLevel -= 1
        if pretty { writeLineBreak() }
        bytes.append(0x7D)
    }

    private mutating func writeLineBreak() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * indentLevel))
    }

    // MARK: Numbers

    private mutating func writeInteger(_ value: Int64) {
        // Digits are produced backwards into a 20-byte stack buffer (Int64.min has 19 digits
        // plus the sign).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var position = 20
            repeat {
                position -= 1
                digits[position] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                position -= 1
                digits[position] = 0x2D
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position ..< 20]))
        }
    }

    private mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            append(Self.nullText)
            return
        }
        // Integral values below 2^53 are exact as Int64 and print without a fraction.
        // (Truncating conversion and comparison, not `rounded()`, which would need libm.)
        if value.magnitude < 9_007_199_254_740_992, Double(Int64(value)) == value {
            let integer = Int64(value)
            if integer == 0 && value.sign == .minus {
                bytes.append(0x2D)
                bytes.append(0x30)
            } else {
                writeInteger(integer)
            }
            return
        }
        // `description` is the shortest representation that round-trips.
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    // MARK: Strings

    private mutating func writeString(_ string: String) {
        bytes.append(0x22)
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
        if written == nil {
            var copy = string
            copy.withUTF8 { writeEscaped($0) }
        }
        bytes.append(0x22)
    }

    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for position in utf8.indices {
            let byte = utf8[position]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            if runStart < position {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart ..< position]))
            }
            runStart = position + 1
            bytes.append(0x5C)
            switch byte {
            case 0x22, 0x5C: bytes.append(byte)
            case 0x08: bytes.append(0x62)
            case 0x0C: bytes.append(0x66)
            case 0x0A: bytes.append(0x6E)
            case 0x0D: bytes.append(0x72)
            case 0x09: bytes.append(0x74)
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                bytes.append(0x75)
                bytes.append(0x30)
                bytes.append(0x30)
                bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
                bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }
}

extension JSONValue {
    /// The compact JSON text of this value (no whitespace).
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// The JSON text of this value, indented with two spaces per level when `pretty`.
    public func serialized(pretty: Bool) -> String {
        String(decoding: serializedBytes(pretty: pretty), as: UTF8.self)
    }

    /// The compact JSON text of this value as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] {
        serializedBytes(pretty: false)
    }

    /// The JSON text of this value as UTF-8 bytes, indented when `pretty`.
    public func serializedBytes(pretty: Bool) -> [UInt8] {
        var serializer = JSONSerializer(pretty: pretty)
        serializer.write(self)
        return serializer.bytes
    }
}
