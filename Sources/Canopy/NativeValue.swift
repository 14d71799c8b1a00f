import CanopyTree
import Foundation

/// Conversion between the Foundation-style values of the public API (`NSNumber`, `String`,
/// `[String: Any]`, `[Any]`, `NSNull`, …) and JSON.
///
/// Input accepts what FirebaseDatabase accepts plus Swift's own scalar types: `nil`/`NSNull`,
/// `Bool`, every integer and floating-point type, `NSNumber` (booleans told apart from
/// numbers by their class), `String`/`Substring`/`NSString`, dictionaries keyed by strings
/// (`[String: Any]`, `[AnyHashable: Any]`, `NSDictionary`) and arrays (`[Any]`, `NSArray`).
/// Output uses `NSNumber` for numbers and booleans, `String`, `[String: Any]`, `[Any]` (with
/// `NSNull` in missing slots) and `NSNull` for no data, as FirebaseDatabase does.
enum NativeValue {
    /// The class of a boolean `NSNumber` (`__NSCFBoolean` on every platform).
    private static let booleanNumberType: NSNumber.Type = type(of: NSNumber(value: true))

    /// The JSON form of a user value; `path` names the location in error messages.
    ///
    /// - Throws: ``DatabaseError`` with code `DatabaseError.Code.invalidArgument` naming the
    ///   path of the first value that is not a database value.
    static func json(from value: Any?, at path: Path) throws(DatabaseError) -> JSONValue {
        guard let value else { return .null }
        return try json(fromNonNil: value, at: path)
    }

    private static func json(fromNonNil value: Any, at path: Path) throws(DatabaseError) -> JSONValue {
        let dynamicType = type(of: value)
        if let optional = value as? any OptionalUnwrapping {
            guard let wrapped = optional.unwrappedValue else { return .null }
            return try json(fromNonNil: wrapped, at: path)
        }
        if value is NSNull { return .null }
        if dynamicType == Bool.self, let bool = value as? Bool { return .bool(bool) }
        if dynamicType is NSNumber.Type, let number = value as? NSNumber { return json(from: number) }
        if let string = value as? String { return .string(string) }
        if let substring = value as? Substring { return .string(String(substring)) }
        if let integer = value as? any BinaryInteger {
            if let exact = Int64(exactly: integer) { return .int(exact) }
            return .double(Double(integer))
        }
        if let floating = value as? any BinaryFloatingPoint {
            return try finite(Double(floating), at: path)
        }
        if let dictionary = value as? [String: Any] {
            var members: [JSONMember] = []
            members.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                members.append(JSONMember(key, try json(from: element, at: path.child(ChildKey(key)))))
            }
            return .object(members)
        }
        if let dictionary = value as? [AnyHashable: Any] {
            var members: [JSONMember] = []
            members.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                guard let name = key.base as? String else {
                    throw DatabaseError.invalidArgument(
                        "Invalid key \(key) at \(path.wireString): dictionary keys must be strings")
                }
                members.append(JSONMember(name, try json(from: element, at: path.child(ChildKey(name)))))
            }
            return .object(members)
        }
        if let array = value as? [Any] {
            var elements: [JSONValue] = []
            elements.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                elements.append(try json(from: element, at: path.child(ChildKey(String(index)))))
            }
            return .array(elements)
        }
        throw DatabaseError.invalidArgument(
            "Cannot store a value of type \(dynamicType) at \(path.wireString): values must be "
                + "nil/NSNull, Bool, numbers, strings, [String: Any] or [Any]")
    }

    private static func json(from number: NSNumber) -> JSONValue {
        if type(of: number) == booleanNumberType { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d":
            return .double(number.doubleValue)
        case "Q", "L":
            if let exact = Int64(exactly: number.uint64Value) { return .int(exact) }
            return .double(number.doubleValue)
        default:
            return .int(number.int64Value)
        }
    }

    private static func finite(_ value: Double, at path: Path) throws(DatabaseError) -> JSONValue {
        guard value.isFinite else { throw DatabaseError(TreeError.nonFiniteNumber(path: path.wireString)) }
        return .double(value)
    }

    /// The Foundation form of a JSON value; `null` is `NSNull`.
    static func object(from json: JSONValue) -> Any {
        switch json {
        case .null: return NSNull()
        case .bool(let b): return NSNumber(value: b)
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .string(let s): return s
        case .array(let elements): return elements.map(object(from:))
        case .object(let members):
            var dictionary: [String: Any] = [:]
            dictionary.reserveCapacity(members.count)
            for member in members { dictionary[member.key] = object(from: member.value) }
            return dictionary
        }
    }

    /// The Foundation form of a priority or leaf value.
    static func object(from leaf: LeafValue?) -> Any {
        leaf.map { object(from: $0.json) } ?? NSNull()
    }

    /// A priority from a user value: `nil`/`NSNull`, a string, a finite number or a server
    /// value placeholder.
    ///
    /// - Throws: ``DatabaseError`` naming the path when it is anything else.
    static func priority(from value: Any?, at path: Path) throws(DatabaseError) -> LeafValue? {
        let json = try json(from: value, at: path.child(.priority))
        return try DatabasePath.validatedNode(json, forWriteAt: path.child(.priority)).leafValue
    }
}

/// Lets ``NativeValue`` see through an `Optional` stored in an `Any`.
private protocol OptionalUnwrapping {
    var unwrappedValue: Any? { get }
}

extension Optional: OptionalUnwrapping {
    fileprivate var unwrappedValue: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}
