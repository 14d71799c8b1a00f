/// The value of a leaf node, or of a priority.
public enum LeafValue: Sendable {
    /// A boolean. Never a number.
    case bool(Bool)
    /// An integral number kept exactly.
    case int(Int64)
    /// Any other finite number.
    case double(Double)
    /// A string, compared by code units.
    case string(String)
    /// A server-value placeholder, resolved by the server when the write is applied.
    case serverValue(ServerValue)

    /// The number as a double, for numeric leaves.
    public var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// Whether this is a number (`int` or `double`).
    public var isNumber: Bool { numberValue != nil }

    /// The JSON form of the value (placeholders as their `{".sv": …}` object).
    public var json: JSONValue {
        switch self {
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .serverValue(let v): return v.json
        }
    }
}

extension LeafValue: Equatable {
    /// Equal when of the same kind and value; `int(1) == double(1.0)`; strings by code units.
    public static func == (lhs: LeafValue, rhs: LeafValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return CodeUnitOrder.equal(a, b)
        case (.serverValue(let a), .serverValue(let b)): return a == b
        default:
            guard let a = lhs.numberValue, let b = rhs.numberValue else { return false }
            return a == b
        }
    }
}

/// A server-value placeholder (`{".sv": …}`), resolved where the write is applied.
public enum ServerValue: Sendable, Equatable {
    /// `{".sv": "timestamp"}`: the server's time in milliseconds since the Unix epoch.
    case timestamp
    /// `{".sv": {"increment": n}}` with an integral `n`.
    case incrementInt(Int64)
    /// `{".sv": {"increment": n}}` with a fractional `n`.
    case incrementDouble(Double)

    /// The placeholder object as sent on the wire.
    public var json: JSONValue {
        switch self {
        case .timestamp: return .object([JSONMember(".sv", .string("timestamp"))])
        case .incrementInt(let n): return .object([JSONMember(".sv", .object([JSONMember("increment", .int(n))]))])
        case .incrementDouble(let n):
            return .object([JSONMember(".sv", .object([JSONMember("increment", .double(n))]))])
        }
    }
}
