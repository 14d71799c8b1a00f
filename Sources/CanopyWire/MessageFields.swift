import CanopyTree

/// Reads the fields of one JSON object inside a message, turning every missing or mistyped
/// field into a ``WireError`` that names the field and where it was expected.
struct MessageFields {
    /// The object's value (always `.object`).
    let value: JSONValue
    /// Where the object sits, for error messages (for example `body of "p" request`).
    let context: String
    /// The request the object belongs to, when known.
    let requestNumber: Int64?

    /// Wraps `value`, which must be an object.
    init(_ value: JSONValue?, context: String, requestNumber: Int64? = nil) throws(WireError) {
        guard let value, case .object = value else {
            throw WireError(
                .malformedMessage, "\(context) must be a JSON object, got \(MessageFields.describe(value))",
                requestNumber: requestNumber)
        }
        self.value = value
        self.context = context
        self.requestNumber = requestNumber
    }

    /// A member, or `nil` when absent (`null` members are present).
    subscript(key: String) -> JSONValue? { value[key] }

    /// Whether the member is present.
    func has(_ key: String) -> Bool { value[key] != nil }

    func error(_ text: String) -> WireError {
        WireError(.malformedMessage, "\(context): \(text)", requestNumber: requestNumber)
    }

    /// A member that must be present (it may be `null`).
    func required(_ key: String) throws(WireError) -> JSONValue {
        guard let member = value[key] else { throw error("missing field \"\(key)\"") }
        return member
    }

    /// A string member that must be present.
    func string(_ key: String) throws(WireError) -> String {
        guard let member = try optionalString(key) else { throw error("missing field \"\(key)\"") }
        return member
    }

    /// A string member, `nil` when absent or `null`.
    func optionalString(_ key: String) throws(WireError) -> String? {
        switch value[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw error("field \"\(key)\" must be a string, got \(MessageFields.describe(other))")
        }
    }

    /// An integer member that must be present.
    func integer(_ key: String) throws(WireError) -> Int64 {
        guard let member = try optionalInteger(key) else { throw error("missing field \"\(key)\"") }
        return member
    }

    /// An integer member, `nil` when absent or `null`. Integral doubles are accepted.
    func optionalInteger(_ key: String) throws(WireError) -> Int64? {
        switch value[key] {
        case nil, .null?: return nil
        case .int(let i)?: return i
        case .double(let d)?:
            // Range check first: converting an out-of-range double to Int64 traps.
            if d > -9.2e18 && d < 9.2e18, Double(Int64(d)) == d { return Int64(d) }
            throw error("field \"\(key)\" must be an integer, got \(d)")
        case let other?: throw error("field \"\(key)\" must be an integer, got \(MessageFields.describe(other))")
        }
    }

    /// A boolean member, `nil` when absent or `null`.
    func optionalBool(_ key: String) throws(WireError) -> Bool? {
        switch value[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let other?: throw error("field \"\(key)\" must be a boolean, got \(MessageFields.describe(other))")
        }
    }

    /// An object member, `nil` when absent or `null`.
    func optionalObject(_ key: String) throws(WireError) -> JSONValue? {
        switch value[key] {
        case nil, .null?: return nil
        case let member? where member.isObject: return member
        case let other?: throw error("field \"\(key)\" must be an object, got \(MessageFields.describe(other))")
        }
    }

    /// An object member that must be present.
    func object(_ key: String) throws(WireError) -> JSONValue {
        guard let member = try optionalObject(key) else { throw error("missing field \"\(key)\"") }
        return member
    }

    /// A path member (a string, with or without a leading slash).
    func path(_ key: String) throws(WireError) -> Path {
        Path(try string(key))
    }

    /// A short description of a value's type for error messages.
    static func describe(_ value: JSONValue?) -> String {
        switch value {
        case nil: return "nothing"
        case .null?: return "null"
        case .bool?: return "a boolean"
        case .int?, .double?: return "a number"
        case .string?: return "a string"
        case .array?: return "an array"
        case .object?: return "an object"
        }
    }
}

extension JSONValue {
    /// Whether the value is an object.
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// Builds an object from members, leaving out those whose value is `nil`.
    static func members(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { JSONMember(key, $0) } })
    }
}
