/// Writes ``JSONValue``s as RFC 8259 JSON text into a growing UTF-8 buffer.
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
///
/// Most callers use ``JSONValue/serialized()`` or ``JSONValue/serializedBytes()``; the
/// serializer itself appends several values to one buffer. It owns its buffer, so it cannot
/// be copied.
public struct JSONSerializer: ~Copyable {
    /// Whether output is indented over several lines.
    public let pretty: Bool
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private var indentLevel = 0

    /// Creates an empty serializer with room for `capacity` bytes before it must grow.
    public init(pretty: Bool = false, reservingCapacity capacity: Int = 1024) {
        self.pretty = pretty
        self.capacity = max(capacity, 64)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// The number of bytes written so far.
    public var byteCount: Int { count }

    /// The text written so far as UTF-8 bytes.
    public consuming func makeBytes() -> [UInt8] {
        let source = UnsafePointer(base)
        let written = count
        return [UInt8](unsafeUninitializedCapacity: written) { buffer, initialized in
            buffer.baseAddress?.initialize(from: source, count: written)
            initialized = written
        }
    }

    /// The text written so far.
    public consuming func makeString() -> String {
        let source = UnsafePointer(base)
        let written = count
        return String(unsafeUninitializedCapacity: written) { buffer in
            buffer.baseAddress?.initialize(from: source, count: written)
            return written
        }
    }

    /// Appends `value` as JSON text.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeStatic("null")
        case .bool(let flag): writeStatic(flag ? "true" : "false")
        case .int(let integer): writeInteger(integer)
        case .double(let number): writeDouble(number)
        case .string(let string): writeString(string)
        case .array(let elements): writeArray(elements)
        case .object(let members): writeObject(members)
        }
    }

    // MARK: Buffer

    /// Makes room for `extra` more bytes, so that the next `extra` bytes can be stored
    /// without checks.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Stores one byte; room must have been reserved.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    /// Stores `length` bytes from `source`; room must have been reserved.
    @inline(__always)
    private mutating func put(_ source: UnsafePointer<UInt8>, _ length: Int) {
        (base + count).initialize(from: source, count: length)
        count &+= length
    }

    private mutating func writeStatic(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        put(text.utf8Start, text.utf8CodeUnitCount)
    }

    // MARK: Containers

    private mutating func writeArray(_ elements: [JSONValue]) {
        reserve(2)
        put(0x5B)
        guard !elements.isEmpty else {
            put(0x5D)
            return
        }
        indentLevel += 1
        for position in elements.indices {
            if position > 0 {
                reserve(1)
                put(0x2C)
            }
            if pretty { writeLineBreak() }
            write(elements[position])
        }
        indentLevel -= 1
        if pretty { writeLineBreak() }
        reserve(1)
        put(0x5D)
    }

    private mutating func writeObject(_ members: [JSONMember]) {
        reserve(2)
        put(0x7B)
        guard !members.isEmpty else {
            put(0x7D)
            return
        }
        indentLevel += 1
        for position in members.indices {
            if position > 0 {
                reserve(1)
                put(0x2C)
            }
            if pretty { writeLineBreak() }
            writeString(members[position].key)
            reserve(2)
            put(0x3A)
            if pretty { put(0x20) }
            write(members[position].value)
        }
        indentLevel -= 1
        if pretty { writeLineBreak() }
        reserve(1)
        put(0x7D)
    }

    private mutating func writeLineBreak() {
        let indent = 2 * indentLevel
        reserve(1 + indent)
        put(0x0A)
        (base + count).initialize(repeating: 0x20, count: indent)
        count += indent
    }

    // MARK: Numbers

    private mutating func writeInteger(_ value: Int64) {
        var magnitude = value.magnitude
        var digits = 1
        var limit: UInt64 = 10
        while digits < 20 && magnitude >= limit {
            digits += 1
            limit = limit &* 10
        }
        reserve(digits + 1)
        if value < 0 { put(0x2D) }
        var position = count + digits
        count = position
        repeat {
            position -= 1
            base[position] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
    }

    private mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeStatic("null")
            return
        }
        // Integral values below 2^53 are exact as Int64 and print without a fraction.
        // (Truncating conversion and comparison, not `rounded()`, which would need libm.)
        if value.magnitude < 9_007_199_254_740_992, Double(Int64(value)) == value {
            if value == 0 && value.sign == .minus {
                writeStatic("-0")
            } else {
                writeInteger(Int64(value))
            }
            return
        }
        // `description` is the shortest representation that round-trips.
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        writeRawUTF8(text)
    }

    private mutating func writeRawUTF8(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard let source = utf8.baseAddress else { return }
            reserve(utf8.count)
            put(source, utf8.count)
        }
        if written == nil {
            var copy = text
            copy.withUTF8 { utf8 in
                guard let source = utf8.baseAddress else { return }
                reserve(utf8.count)
                put(source, utf8.count)
            }
        }
    }

    // MARK: Strings

    private mutating func writeString(_ string: String) {
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { writeQuoted($0) }
        if written == nil {
            var copy = string
            copy.withUTF8 { writeQuoted($0) }
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Writes `utf8` as a quoted, escaped JSON string.
    private mutating func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        let length = utf8.count
        // Worst case: every byte becomes a six-byte `\u00XX`, plus the quotes.
        reserve(length &* 6 &+ 2)
        put(0x22)
        guard let source = utf8.baseAddress else {
            put(0x22)
            return
        }
        var runStart = 0
        var position = 0
        while true {
            // Skip eight bytes at a time while none is a quote, backslash or control character.
            while position &+ 8 <= length {
                let word = UnsafeRawPointer(source + position).loadUnaligned(as: UInt64.self)
                if JSONWordScan.hasSpecialByte(word) { break }
                position &+= 8
            }
            while position < length {
                let byte = source[position]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C { break }
                position &+= 1
            }
            put(source + runStart, position &- runStart)
            guard position < length else { break }
            let byte = source[position]
            position &+= 1
            runStart = position
            put(0x5C)
            switch byte {
            case 0x22, 0x5C: put(byte)
            case 0x08: put(0x62)
            case 0x0C: put(0x66)
            case 0x0A: put(0x6E)
            case 0x0D: put(0x72)
            case 0x09: put(0x74)
            default:
                put(0x75)
                put(0x30)
                put(0x30)
                put(Self.hexDigits.utf8Start[Int(byte >> 4)])
                put(Self.hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        put(0x22)
    }
}

extension JSONValue {
    /// The compact JSON text of this value (no whitespace).
    public func serialized() -> String {
        serialized(pretty: false)
    }

    /// The JSON text of this value, indented with two spaces per level when `pretty`.
    public func serialized(pretty: Bool) -> String {
        var serializer = JSONSerializer(pretty: pretty)
        serializer.write(self)
        return serializer.makeString()
    }

    /// The compact JSON text of this value as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] {
        serializedBytes(pretty: false)
    }

    /// The JSON text of this value as UTF-8 bytes, indented when `pretty`.
    public func serializedBytes(pretty: Bool) -> [UInt8] {
        var serializer = JSONSerializer(pretty: pretty)
        serializer.write(self)
        return serializer.makeBytes()
    }
}
