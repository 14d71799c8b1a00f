import CanopyTree
import Foundation

/// Decodes `Decodable` values from database values, without going through JSON text.
///
/// Used by ``DataSnapshot/data(as:decoder:)`` and available as ``Database/Decoder``.
/// Objects decode keyed containers, arrays unkeyed ones. Because the database stores arrays
/// as children `"0"`, `"1"`, …, an object also decodes as an unkeyed container (its values in
/// key order) and an array as a keyed one (keyed by position). Integers decode from integral
/// numbers only; `Date` follows ``dateDecodingStrategy`` (milliseconds since 1970 by
/// default, what ``ServerValue/timestamp()`` stores).
public struct DatabaseDecoder: Sendable {
    /// How `Date` values are read.
    public enum DateDecodingStrategy: Sendable {
        /// A number of milliseconds since 1970-01-01 (the server timestamp unit). The default.
        case millisecondsSince1970
        /// A number of seconds since 1970-01-01.
        case secondsSince1970
        /// ISO 8601 text.
        case iso8601
        /// Whatever `Date.init(from:)` reads (seconds since 2001-01-01).
        case deferredToDate
    }

    /// How `Date` values are read; milliseconds since 1970 unless changed.
    public var dateDecodingStrategy: DateDecodingStrategy = .millisecondsSince1970
    /// Values handed to every `init(from:)` through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder with the default strategies.
    public init() {}

    /// Decodes a `T` from a Foundation-style database value (what ``DataSnapshot/value``
    /// returns).
    ///
    /// - Throws: ``DatabaseError`` when `value` is not a database value, `DecodingError` when
    ///   it does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type, from value: Any) throws -> T {
        try decode(type, fromJSON: NativeValue.json(from: value, at: .root))
    }

    /// Decodes a `T` from JSON.
    func decode<T: Decodable>(_ type: T.Type, fromJSON json: JSONValue) throws -> T {
        try DecodingState(options: self, value: json, codingPath: []).decodeValue(type)
    }
}

/// The `Decoder` handed to `init(from:)` implementations.
private struct DecodingState: Decoder {
    let options: DatabaseDecoder
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let members):
            var byKey: [String: JSONValue] = [:]
            for member in members { byKey[member.key] = member.value }
            return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, members: byKey))
        case .array(let elements):
            var byKey: [String: JSONValue] = [:]
            for (index, element) in elements.enumerated() where element != .null { byKey[String(index)] = element }
            return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, members: byKey))
        default:
            throw mismatch([String: Any].self)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements):
            return UnkeyedContainer(decoder: self, elements: elements)
        case .object(let members):
            let sorted = members.sorted { ChildKey($0.key) < ChildKey($1.key) }
            return UnkeyedContainer(decoder: self, elements: sorted.map(\.value))
        case .null:
            return UnkeyedContainer(decoder: self, elements: [])
        default:
            throw mismatch([Any].self)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    func nested(_ key: any CodingKey, _ value: JSONValue) -> DecodingState {
        DecodingState(options: options, value: value, codingPath: codingPath + [key])
    }

    func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath, debugDescription: "Expected \(type) but found \(TreeErrorText.describe(value))")
        )
    }

    /// Decodes `type`, applying the special cases for dates, data and URLs.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == Date.self, let date = try decodeDate() as? T { return date }
        if type == Data.self {
            guard case .string(let text) = value, let data = Data(base64Encoded: text) as? T else {
                throw mismatch(Data.self)
            }
            return data
        }
        if type == URL.self {
            guard case .string(let text) = value, let url = URL(string: text) as? T else { throw mismatch(URL.self) }
            return url
        }
        return try T(from: self)
    }

    private func decodeDate() throws -> Date? {
        switch options.dateDecodingStrategy {
        case .millisecondsSince1970:
            guard let ms = value.doubleValue else { throw mismatch(Date.self) }
            return Date(timeIntervalSince1970: ms / 1000)
        case .secondsSince1970:
            guard let seconds = value.doubleValue else { throw mismatch(Date.self) }
            return Date(timeIntervalSince1970: seconds)
        case .iso8601:
            guard case .string(let text) = value, let date = try? Date(text, strategy: .iso8601) else {
                throw mismatch(Date.self)
            }
            return date
        case .deferredToDate:
            return try Date(from: self)
        }
    }

    // MARK: Scalars

    func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(Bool.self) }
        return b
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self) }
        return s
    }

    func double() throws -> Double {
        guard let d = value.doubleValue else { throw mismatch(Double.self) }
        return d
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        switch value {
        case .int(let i):
            if let exact = I(exactly: i) { return exact }
        case .double(let d):
            if let exact = I(exactly: d) { return exact }
        default:
            break
        }
        throw mismatch(I.self)
    }
}

/// Reads named members of an object.
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: DecodingState
    let members: [String: JSONValue]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> DecodingState {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\""))
        }
        return decoder.nested(key, value)
    }

    func decodeNil(forKey key: Key) throws -> Bool { (members[key.stringValue] ?? .null) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).double() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try child(key).double()) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try child(key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder.nested(IndexKey(name: "super"), members["super"] ?? .null) }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.nested(key, members[key.stringValue] ?? .null) }
}

/// Reads the elements of an array in order.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: DecodingState
    let elements: [JSONValue]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: DecodingState, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    private mutating func next() throws -> DecodingState {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self,
                DecodingError.Context(codingPath: codingPath, debugDescription: "The array has no more elements"))
        }
        let state = decoder.nested(IndexKey(index: currentIndex), elements[currentIndex])
        currentIndex += 1
        return state
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().double() }
    mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().double()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

/// Reads one value.
private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: DecodingState
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
    func decode(_ type: String.Type) throws -> String { try decoder.string() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}

/// Short descriptions of JSON values for decoding error messages.
private enum TreeErrorText {
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return "the number \(i)"
        case .double(let d): return "the number \(d)"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
