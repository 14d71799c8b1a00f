/// The header fields of a REST request or response, in order, with case-insensitive
/// lookup by name.
public struct RESTHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable {
        /// The name as written.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a field.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from `name: value` pairs in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field($0.0, $0.1) }
    }

    /// The value of the last field named `name` (compared ASCII case-insensitively), or `nil`.
    public subscript(name: String) -> String? {
        fields.last { RESTHeaders.sameName($0.name, name) }?.value
    }

    /// Adds a field after the existing ones.
    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name, value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { RESTHeaders.sameName($0.name, name) }
        fields.append(Field(name, value))
    }

    /// Whether two header names are equal ignoring ASCII case.
    private static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { lowercase($0) == lowercase($1) }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
