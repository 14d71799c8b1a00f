import CanopyTree
import Foundation

/// An immutable copy of the data at a location (or in a query's results) at the moment an
/// event was raised or a read answered.
///
/// Snapshots are `Sendable` values: keep them, pass them between tasks, read them from any
/// thread. ``value`` gives the data in FirebaseDatabase's Foundation form; the typed
/// accessors (``stringValue``, ``intValue``, ``doubleValue``, ``boolValue``) and
/// ``data(as:decoder:)`` avoid the casts.
///
/// ``children`` enumerates child snapshots in the query's order (by priority for a plain
/// reference, by child, key or value for an ordered query).
public struct DataSnapshot: Sendable {
    /// The data.
    let node: Node
    /// The index that orders ``children``.
    let index: CanopyTree.Index
    /// The location the snapshot describes.
    public let ref: DatabaseReference

    init(node: Node, ref: DatabaseReference, index: CanopyTree.Index = .priority) {
        self.node = node
        self.ref = ref
        self.index = index
    }

    /// The last key of the snapshot's location.
    ///
    /// The root of the database has no key: a snapshot of the root returns the empty string
    /// here (``DatabaseReference/key`` is `nil` there).
    public var key: String { ref.key ?? "" }

    /// The data in Foundation form: `NSNumber` for numbers and booleans, `String`,
    /// `[String: Any]` for objects, `[Any]` for children whose keys are `"0"`, `"1"`, … (when
    /// at least half the slots are used; missing slots are `NSNull`), and `NSNull` when
    /// there is no data. Priorities are left out (see ``valueInExportFormat()``).
    public var value: Any? { NativeValue.object(from: node.valueJSON()) }

    /// The data with priorities, in export form: a leaf with a priority is
    /// `[".value": v, ".priority": p]`, an object with a priority has a `".priority"` member;
    /// objects are never turned into arrays. `NSNull` when there is no data.
    public func valueInExportFormat() -> Any? { NativeValue.object(from: node.exportJSON()) }

    /// The priority (`NSNumber` or `String`), or `NSNull` when there is none.
    public var priority: Any? { NativeValue.object(from: node.priority) }

    /// Whether there is data here (a snapshot of a missing location does not exist).
    public func exists() -> Bool { !node.isEmpty }

    /// Whether the data has children.
    public func hasChildren() -> Bool { node.childCount > 0 }

    /// The number of children.
    public var childrenCount: UInt { UInt(node.childCount) }

    /// Whether there is data at the relative `path` (`"a"` or `"a/b/c"`); `false` for an
    /// invalid path.
    public func hasChild(_ path: String) -> Bool {
        guard let relative = try? DatabasePath.relative(path, below: ref.path) else { return false }
        return !node.child(at: relative).isEmpty
    }

    /// The snapshot of the location at the relative `path` (which need not exist).
    ///
    /// An invalid `path` never crashes: the result is an empty snapshot whose
    /// ``DatabaseQuery/validationError`` names the problem.
    public func childSnapshot(forPath path: String) -> DataSnapshot {
        let child = ref.child(path)
        guard child.validationError == nil, let relative = child.path.relative(to: ref.path) else {
            return DataSnapshot(node: .empty, ref: child)
        }
        return DataSnapshot(node: node.child(at: relative), ref: child)
    }

    /// The child snapshots in the query's order.
    public var children: [DataSnapshot] {
        index.sortedChildren(of: node).map { named in
            DataSnapshot(node: named.node, ref: ref.child(key: named.key))
        }
    }

    /// The value as a `String`, when it is a string.
    public var stringValue: String? {
        if case .string(let s)? = node.leafValue { return s }
        return nil
    }

    /// The value as an `Int`, when it is an integral number that fits.
    public var intValue: Int? {
        switch node.leafValue {
        case .int(let i)?: return Int(exactly: i)
        case .double(let d)?: return Int(exactly: d)
        default: return nil
        }
    }

    /// The value as a `Double`, when it is a number.
    public var doubleValue: Double? { node.leafValue?.numberValue }

    /// The value as a `Bool`, when it is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b)? = node.leafValue { return b }
        return nil
    }

    /// Decodes the data as a `T`.
    ///
    /// `T` may be a scalar, an optional (a missing location decodes as `nil`), an array
    /// (from an array or from an object's values in key order), a dictionary or any
    /// `Decodable` type. Dates are read as milliseconds since 1970 unless the decoder says
    /// otherwise, so `@ServerTimestamp` properties and ``ServerValue/timestamp()`` values
    /// decode as `Date`.
    ///
    /// - Throws: `DecodingError` when the data does not fit `T`.
    public func data<T: Decodable>(as type: T.Type = T.self, decoder: DatabaseDecoder = DatabaseDecoder()) throws -> T {
        try decoder.decode(type, fromJSON: node.valueJSON())
    }
}

extension DataSnapshot: CustomStringConvertible {
    /// The key and the data in export form.
    public var description: String {
        "Snap (\(ref.key ?? "<root>")) \(node.exportJSON().serialized())"
    }
}
