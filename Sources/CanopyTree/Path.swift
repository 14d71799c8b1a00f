/// A location in the tree: a sequence of keys from the root.
///
/// Parsing drops empty segments, so `users/alice`, `/users/alice/` and `//users//alice` are
/// the same path. Paths compare key by key in key order, a parent before its descendants.
/// `Path(_:)` does not validate; ``TreeValidation`` checks a path a user supplies.
public struct Path: Sendable, Hashable {
    /// The keys from the root; empty for the root.
    public let keys: [ChildKey]

    /// The root path.
    public static let root = Path(keys: [])

    /// Creates a path from keys.
    public init(keys: [ChildKey]) { self.keys = keys }

    /// Parses a slash-separated path, dropping empty segments.
    public init(_ string: String) {
        keys = string.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            .map { ChildKey(String(decoding: $0, as: UTF8.self)) }
    }

    /// Whether this is the root.
    public var isRoot: Bool { keys.isEmpty }
    /// The first key, or `nil` at the root.
    public var front: ChildKey? { keys.first }
    /// The last key, or `nil` at the root.
    public var back: ChildKey? { keys.last }
    /// The number of keys.
    public var count: Int { keys.count }

    /// The path without its first key (the root stays the root).
    public var popFront: Path { Path(keys: Array(keys.dropFirst())) }
    /// The parent path, or `nil` at the root.
    public var parent: Path? { keys.isEmpty ? nil : Path(keys: Array(keys.dropLast())) }

    /// The path of a child of this location.
    public func child(_ key: ChildKey) -> Path { Path(keys: keys + [key]) }
    /// The path of a descendant of this location.
    public func child(_ path: Path) -> Path { Path(keys: keys + path.keys) }
    /// The path of a descendant given as a slash-separated string.
    public func child(_ path: String) -> Path { child(Path(path)) }

    /// Whether `self` equals `other` or is an ancestor of it.
    public func contains(_ other: Path) -> Bool {
        keys.count <= other.keys.count && zip(keys, other.keys).allSatisfy { $0 == $1 }
    }

    /// The path from `ancestor` to `self`, or `nil` when `ancestor` does not contain `self`.
    public func relative(to ancestor: Path) -> Path? {
        ancestor.contains(self) ? Path(keys: Array(keys.dropFirst(ancestor.keys.count))) : nil
    }

    /// The form clients send on the wire: a leading slash, `/` for the root.
    public var wireString: String { "/" + keys.map(\.string).joined(separator: "/") }
    /// The form a server sends: no leading slash, `/` for the root.
    public var serverString: String { keys.isEmpty ? "/" : keys.map(\.string).joined(separator: "/") }
}

extension Path: Comparable {
    /// Key by key in key order; a path sorts before its descendants.
    public static func < (lhs: Path, rhs: Path) -> Bool {
        for (a, b) in zip(lhs.keys, rhs.keys) {
            let c = ChildKey.compare(a, b)
            if c != 0 { return c < 0 }
        }
        return lhs.keys.count < rhs.keys.count
    }
}

extension Path: ExpressibleByStringLiteral {
    /// Parses a literal path.
    public init(stringLiteral value: String) { self.init(value) }
}

extension Path: CustomStringConvertible {
    /// The wire form, with a leading slash.
    public var description: String { wireString }
}
