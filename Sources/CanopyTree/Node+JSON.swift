/// Conversion between nodes and JSON (protocol.md §1.2, §1.4–§1.6).
extension Node {
    /// Builds a node from JSON in export form (plain JSON is export form without metadata).
    ///
    /// - `null` is empty; booleans, numbers and strings are leaves.
    /// - Arrays become children keyed `"0"`, `"1"`, …; `null` elements are dropped.
    /// - In an object, `.priority` is the node's priority and a non-null `.value` is the
    ///   node's value (it must not be combined with real children); `{".sv": …}` is a
    ///   server-value placeholder leaf; other keys starting with `.` are ignored.
    /// - Children that convert to empty are dropped, so `{}` and `{"a": null}` are empty, and
    ///   a priority on an empty node is dropped.
    ///
    /// Keys are not validated here (data from the wire or from disk is trusted); use
    /// ``TreeValidation/validatedNode(_:forWriteAt:)`` for user or client writes.
    ///
    /// - Throws: ``TreeError`` for an invalid priority, an unknown server value, `.value`
    ///   combined with children, or a non-finite number.
    public init(json: JSONValue) throws(TreeError) {
        var trail: [ChildKey] = []
        self = try Node.convert(json, base: .root, trail: &trail)
    }

    /// Builds a node from JSON whose location is `base`; errors name paths below `base`.
    init(json: JSONValue, at base: Path) throws(TreeError) {
        var trail: [ChildKey] = []
        self = try Node.convert(json, base: base, trail: &trail)
    }

    /// Parses JSON text (export form) and builds a node from it, as ``init(json:)``.
    ///
    /// - Throws: ``JSONError`` when the text is not JSON, ``TreeError`` when the JSON is not
    ///   a valid node.
    public init(jsonText: String) throws {
        try self.init(json: JSONParser.parse(jsonText))
    }

    /// The node in export form: a leaf with a priority becomes
    /// `{".value": v, ".priority": p}`, a children node with a priority gets an extra
    /// `".priority"` member after its children, children are in key order, no arrays are
    /// produced, and the empty node is `null`. This is what the wire and disk use.
    public func exportJSON() -> JSONValue {
        switch content {
        case .leaf(let value):
            guard let priority else { return value.json }
            return .object([JSONMember(".value", value.json), JSONMember(".priority", priority.json)])
        case .children(let map):
            if map.isEmpty { return .null }
            var members: [JSONMember] = []
            members.reserveCapacity(map.count + 1)
            for (key, child) in map.entries {
                members.append(JSONMember(key.string, child.exportJSON()))
            }
            if let priority { members.append(JSONMember(".priority", priority.json)) }
            return .object(members)
        }
    }

    /// The node's plain value, without priorities: leaves as their JSON value, the empty node
    /// as `null`, and a children node as an array when every key is a canonical non-negative
    /// integer (`"0"` or no leading zero) and the largest key is less than twice the number
    /// of children (missing slots are `null`), else as an object in key order.
    public func valueJSON() -> JSONValue {
        switch content {
        case .leaf(let value):
            return value.json
        case .children(let map):
            if map.isEmpty { return .null }
            if let maxIndex = Node.arrayMaxIndex(map) {
                var elements = [JSONValue](repeating: .null, count: maxIndex + 1)
                for (key, child) in map.entries {
                    if let index = Node.canonicalIndex(key.string) { elements[index] = child.valueJSON() }
                }
                return .array(elements)
            }
            var members: [JSONMember] = []
            members.reserveCapacity(map.count)
            for (key, child) in map.entries {
                members.append(JSONMember(key.string, child.valueJSON()))
            }
            return .object(members)
        }
    }

    // MARK: - Conversion from JSON

    /// The path of the value being converted, for error messages.
    private static func location(_ base: Path, _ trail: [ChildKey]) -> String {
        Path(keys: base.keys + trail).wireString
    }

    private static func convert(_ json: JSONValue, base: Path, trail: inout [ChildKey]) throws(TreeError) -> Node {
        switch json {
        case .null:
            return .empty
        case .bool(let b):
            return Node(leaf: .bool(b))
        case .int(let i):
            return Node(leaf: .int(i))
        case .double(let d):
            guard d.isFinite else { throw .nonFiniteNumber(path: location(base, trail)) }
            return Node(leaf: .double(d))
        case .string(let s):
            return Node(leaf: .string(s))
        case .array(let elements):
            var entries: [(ChildKey, Node)] = []
            entries.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                let key = ChildKey(String(index))
                trail.append(key)
                let child = try convert(element, base: base, trail: &trail)
                trail.removeLast()
                if !child.isEmpty { entries.append((key, child)) }
            }
            return Node(children: ChildMap(entries))
        case .object(let members):
            return try convertObject(members, base: base, trail: &trail)
        }
    }

    private static func convertObject(
        _ members: [JSONMember], base: Path, trail: inout [ChildKey]
    ) throws(TreeError) -> Node {
        var priorityJSON: JSONValue?
        var valueJSON: JSONValue?
        var serverValueJSON: JSONValue?
        var hasChildren = false
        for member in members {
            let key = member.key.utf8
            if key.elementsEqual(".priority".utf8) {
                priorityJSON = member.value
            } else if key.elementsEqual(".value".utf8) {
                valueJSON = member.value
            } else if key.elementsEqual(".sv".utf8) {
                serverValueJSON = member.value
            } else if key.first != UInt8(ascii: ".") {
                hasChildren = true
            }
        }
        var priority: LeafValue?
        if let priorityJSON {
            trail.append(.priority)
            priority = try convertPriority(priorityJSON, path: location(base, trail))
            trail.removeLast()
        }
        if let valueJSON, valueJSON != .null {
            if hasChildren { throw .valueWithChildren(path: location(base, trail)) }
            return try convert(valueJSON, base: base, trail: &trail).withPriority(priority)
        }
        if let serverValueJSON {
            if hasChildren {
                throw .invalidServerValue(
                    path: location(base, trail), found: "a placeholder object with other children")
            }
            let value = try serverValue(serverValueJSON, path: location(base, trail))
            return Node(leaf: .serverValue(value), priority: priority)
        }
        var entries: [(ChildKey, Node)] = []
        entries.reserveCapacity(members.count)
        for member in members where member.key.utf8.first != UInt8(ascii: ".") {
            let key = ChildKey(member.key)
            trail.append(key)
            let child = try convert(member.value, base: base, trail: &trail)
            trail.removeLast()
            entries.append((key, child))
        }
        return Node(children: ChildMap(entries), priority: priority)
    }

    /// Converts the JSON of a priority: `null` (none), a string, a finite number, or a
    /// server-value placeholder.
    static func convertPriority(_ json: JSONValue, path: @autoclosure () -> String) throws(TreeError) -> LeafValue? {
        switch json {
        case .null: return nil
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        case .double(let d):
            guard d.isFinite else { throw .nonFiniteNumber(path: path()) }
            return .double(d)
        case .object(let members):
            if members.count == 1 && members[0].key.utf8.elementsEqual(".sv".utf8) {
                return .serverValue(try serverValue(members[0].value, path: path()))
            }
            throw .invalidPriority(path: path(), found: TreeError.describe(json))
        case .bool, .array:
            throw .invalidPriority(path: path(), found: TreeError.describe(json))
        }
    }

    /// Reads the content of a `.sv` member: `"timestamp"` or `{"increment": <number>}`.
    static func serverValue(_ json: JSONValue, path: @autoclosure () -> String) throws(TreeError) -> ServerValue {
        switch json {
        case .string(let s) where s.utf8.elementsEqual("timestamp".utf8):
            return .timestamp
        case .object(let members) where members.count == 1 && members[0].key.utf8.elementsEqual("increment".utf8):
            switch members[0].value {
            case .int(let n): return .incrementInt(n)
            case .double(let d) where d.isFinite: return .incrementDouble(d)
            default: break
            }
        default:
            break
        }
        throw .invalidServerValue(path: path(), found: TreeError.describe(json))
    }

    // MARK: - The array rule

    /// The largest index when `map` should read as an array, else `nil`.
    private static func arrayMaxIndex(_ map: ChildMap) -> Int? {
        var maxIndex = -1
        for key in map.orderedKeys {
            guard let index = canonicalIndex(key.string) else { return nil }
            maxIndex = max(maxIndex, index)
        }
        return maxIndex < 2 * map.count ? maxIndex : nil
    }

    /// The value of a key that is `"0"` or a digit string without a leading zero, when it
    /// fits comfortably in an `Int` (longer keys can never pass the array rule).
    private static func canonicalIndex(_ key: String) -> Int? {
        let utf8 = key.utf8
        guard let first = utf8.first, utf8.count <= 18 else { return nil }
        if first == UInt8(ascii: "0") { return utf8.count == 1 ? 0 : nil }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
