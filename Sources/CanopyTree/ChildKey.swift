/// One segment of a path: the name of a child.
///
/// Keys are equal when their code units are identical and are ordered by the database's key
/// order (`nameCompare` in the reference clients):
///
/// 1. ``min`` before every key, ``max`` after every key;
/// 2. keys that parse as 32-bit signed integers (optional `-`, then digits; leading zeros
///    allowed), numerically; equal values (`"1"`, `"01"`) shorter first;
/// 3. every other key by UTF-16 code units.
///
/// Creating a key does not validate it; see ``TreeValidation`` for the rules a written key
/// must follow.
public struct ChildKey: Sendable {
    /// The key's text.
    public let string: String
    /// The key's value when it is an integer key.
    public let integerValue: Int32?
    /// -1 for ``min``, 1 for ``max``, 0 for every other key: lets comparisons order the
    /// sentinels without comparing text.
    @usableFromInline let sentinelRank: Int8

    /// Creates a key from its text.
    public init(_ string: String) {
        self.string = string
        self.integerValue = ChildKey.parseInteger(string)
        if CodeUnitOrder.equal(string, ChildKey.minName) {
            sentinelRank = -1
        } else if CodeUnitOrder.equal(string, ChildKey.maxName) {
            sentinelRank = 1
        } else {
            sentinelRank = 0
        }
    }

    private static let minName = "[MIN_NAME]"
    private static let maxName = "[MAX_NAME]"

    /// The sentinel that sorts before every key (`[MIN_NAME]` on the wire).
    public static let min = ChildKey("[MIN_NAME]")
    /// The sentinel that sorts after every key (`[MAX_NAME]` on the wire).
    public static let max = ChildKey("[MAX_NAME]")
    /// The pseudo-child that addresses a node's priority.
    public static let priority = ChildKey(".priority")

    /// Whether this key is one of the sentinels ``min`` or ``max``.
    public var isSentinel: Bool { sentinelRank != 0 }
    /// Whether this key is the `.priority` pseudo-child.
    public var isPriority: Bool { self == .priority }

    /// Parses an integer key the way the JavaScript client does: an optional `-`, then one to
    /// ten digits after any leading zeros, within the 32-bit signed range.
    static func parseInteger(_ s: String) -> Int32? {
        var utf8 = s.utf8[...]
        guard let first = utf8.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty else { return nil }
        var value: Int64 = 0
        var significant = 0
        for byte in utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            if value == 0 && byte == 0x30 { continue }
            significant += 1
            if significant > 10 { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        if negative { value = -value }
        guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }
}

extension ChildKey: Hashable {
    /// Keys are equal when their code units are identical.
    public static func == (lhs: ChildKey, rhs: ChildKey) -> Bool {
        CodeUnitOrder.equal(lhs.string, rhs.string)
    }

    /// Hashes the key's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)
    }
}

extension ChildKey: Comparable {
    /// Key order; see ``ChildKey``.
    public static func < (lhs: ChildKey, rhs: ChildKey) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Three-way key order: negative, zero or positive.
    public static func compare(_ a: ChildKey, _ b: ChildKey) -> Int {
        if a.sentinelRank != b.sentinelRank { return a.sentinelRank < b.sentinelRank ? -1 : 1 }
        if a.sentinelRank != 0 { return 0 }
        switch (a.integerValue, b.integerValue) {
        case (let x?, let y?):
            if x != y { return x < y ? -1 : 1 }
            let ca = a.string.utf8.count
            let cb = b.string.utf8.count
            return ca == cb ? 0 : (ca < cb ? -1 : 1)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return CodeUnitOrder.compare(a.string, b.string)
        }
    }
}

extension ChildKey: ExpressibleByStringLiteral {
    /// Creates a key from a literal.
    public init(stringLiteral value: String) { self.init(value) }
}

extension ChildKey: CustomStringConvertible {
    /// The key's text.
    public var description: String { string }
}
