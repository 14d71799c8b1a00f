/// A JSON document as parsed from or serialized to text.
///
/// Numbers keep the distinction the protocol cares about: a literal without a fraction or
/// exponent that fits in 64 bits is ``int(_:)``; any other number is ``double(_:)``.
/// Objects keep their members in document order and compare strings by exact code units,
/// never by Unicode canonical equivalence.
public enum JSONValue: Sendable {
    /// JSON `null`.
    case null
    /// `true` or `false`. Never a number.
    case bool(Bool)
    /// An integral number that fits in a signed 64-bit integer.
    case int(Int64)
    /// Any other number. Always finite.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; members in document order.
    case object([JSONMember])
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable {
    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// Creates a member.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: Equatable {
    /// Structural equality: strings by exact code units, objects member by member in order,
    /// numbers by value (`.int(1) == .double(1)`).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && $0.value == $1.value }
        default: return false
        }
    }
}

extension JSONValue {
    /// The member named `key` of an object (the last one when a key repeats), else `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key.utf8.elementsEqual(key.utf8) }?.value
    }

    /// The numeric value of an `int` or `double`, else `nil`.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The string of a `string`, else `nil`.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
