import CanopyTree
import Foundation

/// Encodes `Encodable` values into database values, without going through JSON text.
///
/// Used by ``DatabaseReference/setValue(from:encoder:completion:)`` and available as
/// ``Database/Encoder``. Keyed containers become objects, unkeyed containers arrays (stored
/// as children `"0"`, `"1"`, …), `nil` becomes `null` (the key is removed). `Date` follows
/// ``dateEncodingStrategy`` (milliseconds since 1970 by default, the unit of
/// ``ServerValue/timestamp()``), `Data` is Base64 text, `URL` its absolute string.
public struct DatabaseEncoder: Sendable {
    /// How `Date` values are written.
    public enum DateEncodingStrategy: Sendable {
        /// Integral milliseconds since 1970-01-01 (the server timestamp unit). The default.
        case millisecondsSince1970
        /// Seconds since 1970-01-01 as a number.
        case secondsSince1970
        /// ISO 8601 text (`2026-11-29T14:00:00Z`).
        case iso8601
        /// Whatever `Date.encode(to:)` writes (seconds since 2001-01-01).
        case deferredToDate
    }

    /// How `Date` values are written; milliseconds since 1970 unless changed.
    public var dateEncodingStrategy: DateEncodingStrategy = .millisecondsSince1970
    /// Values handed to every `encode(to:)` through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with the default strategies.
    public init() {}

    /// Encodes `value` into a Foundation-style database value (`NSNumber`, `String`,
    /// `[String: Any]`, `[Any]`, `NSNull`), as FirebaseDatabase's encoder does.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded (non-finite numbers,
    ///   containers without values).
    public func encode<T: Encodable>(_ value: T) throws -> Any {
        NativeValue.object(from: try encodeJSON(value))
    }

    /// Encodes `value` into JSON.
    func encodeJSON<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = EncodingState(options: self, codingPath: [])
        try encoder.encodeValue(value)
        return encoder.result()
    }
}

/// A value being built by the encoder: a finished value or a container filled in later.
/// Containers are mutated in place (no copy per member).
private final class EncodedValue {
    enum Kind {
        case pending
        case value(JSONValue)
        case object
        case array
    }

    var kind: Kind = .pending
    private var members: [String: EncodedValue] = [:]
    private var order: [String] = []
    private var elements: [EncodedValue] = []

    /// Sets a finished value.
    func set(_ value: JSONValue) {
        kind = .value(value)
    }

    /// The number of elements, for an array.
    var count: Int { elements.count }

    func json() -> JSONValue {
        switch kind {
        case .pending: return .null
        case .value(let value): return value
        case .object:
            var result: [JSONMember] = []
            result.reserveCapacity(order.count)
            for key in order {
                if let member = members[key] { result.append(JSONMember(key, member.json())) }
            }
            return .object(result)
        case .array:
            return .array(elements.map { $0.json() })
        }
    }

    func objectChild(_ key: String) -> EncodedValue {
        becomeObject()
        if let child = members[key] { return child }
        let child = EncodedValue()
        members[key] = child
        order.append(key)
        return child
    }

    func appendElement() -> EncodedValue {
        becomeArray()
        let child = EncodedValue()
        elements.append(child)
        return child
    }

    func becomeObject() {
        if case .object = kind { return }
        kind = .object
    }

    func becomeArray() {
        if case .array = kind { return }
        kind = .array
    }
}

/// The `Encoder` handed to `encode(to:)` implementations.
private final class EncodingState: Encoder {
    let options: DatabaseEncoder
    let codingPath: [any CodingKey]
    let target: EncodedValue
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(options: DatabaseEncoder, codingPath: [any CodingKey], target: EncodedValue = EncodedValue()) {
        self.options = options
        self.codingPath = codingPath
        self.target = target
    }

    func result() -> JSONValue { target.json() }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        target.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        target.becomeArray()
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// Encodes `value` into ``target``, applying the special cases for dates, data and URLs.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if let json = try specialJSON(value) {
            target.set(json)
        } else {
            try value.encode(to: self)
        }
    }

    /// A nested encoder writing into `target`.
    func nested(_ key: any CodingKey, target: EncodedValue) -> EncodingState {
        EncodingState(options: options, codingPath: codingPath + [key], target: target)
    }

    private func specialJSON<T: Encodable>(_ value: T) throws -> JSONValue? {
        switch value {
        case let date as Date:
            switch options.dateEncodingStrategy {
            case .millisecondsSince1970:
                let ms = (date.timeIntervalSince1970 * 1000).rounded()
                return Int64(exactly: ms).map(JSONValue.int) ?? .double(ms)
            case .secondsSince1970:
                return .double(date.timeIntervalSince1970)
            case .iso8601:
                return .string(date.formatted(.iso8601))
            case .deferredToDate:
                return nil
            }
        case let data as Data:
            return .string(data.base64EncodedString())
        case let url as URL:
            return .string(url.absoluteString)
        default:
            return nil
        }
    }

    func check(_ value: Double) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "The database cannot store the non-finite number \(value)"
                ))
        }
        return .double(value)
    }

    func integer<I: BinaryInteger>(_ value: I) -> JSONValue {
        Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))
    }
}

/// Writes named members into an object.
private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: EncodingState
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func slot(_ key: Key) -> EncodedValue { encoder.target.objectChild(key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { slot(key).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot(key).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot(key).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        slot(key).set(try encoder.check(value))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        slot(key).set(try encoder.check(Double(value)))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { slot(key).set(encoder.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.nested(key, target: slot(key)).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.nested(key, target: slot(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.nested(key, target: slot(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.nested(IndexKey(name: "super"), target: encoder.target.objectChild("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.nested(key, target: slot(key)) }
}

/// Appends elements to an array.
private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: EncodingState
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.target.count }

    private func next() -> (EncodedValue, IndexKey) {
        let key = IndexKey(index: count)
        return (encoder.target.appendElement(), key)
    }

    mutating func encodeNil() throws { next().0.set(.null) }
    mutating func encode(_ value: Bool) throws { next().0.set(.bool(value)) }
    mutating func encode(_ value: String) throws { next().0.set(.string(value)) }
    mutating func encode(_ value: Double) throws { next().0.set(try encoder.check(value)) }
    mutating func encode(_ value: Float) throws { next().0.set(try encoder.check(Double(value))) }
    mutating func encode(_ value: Int) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: Int8) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: Int16) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: Int32) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: Int64) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt8) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt16) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt32) throws { next().0.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt64) throws { next().0.set(encoder.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let (slot, key) = next()
        try encoder.nested(key, target: slot).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let (slot, key) = next()
        return encoder.nested(key, target: slot).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (slot, key) = next()
        return encoder.nested(key, target: slot).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (slot, key) = next()
        return encoder.nested(key, target: slot)
    }
}

/// Writes one value.
private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: EncodingState
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ json: JSONValue) { encoder.target.set(json) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try encoder.check(value)) }
    mutating func encode(_ value: Float) throws { set(try encoder.check(Double(value))) }
    mutating func encode(_ value: Int) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: Int8) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: Int16) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: Int32) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: Int64) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: UInt) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: UInt8) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: UInt16) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: UInt32) throws { set(encoder.integer(value)) }
    mutating func encode(_ value: UInt64) throws { set(encoder.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
