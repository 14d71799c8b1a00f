/// The rules a key, path, value or write must follow (protocol.md §1.1, §1.5;
/// client-design.md §1.5). Shared by the client (before a write leaves the app) and the
/// server (before a client's write is applied).
///
/// Reserved segments: `.priority` may be the last segment of a path (it addresses the
/// parent's priority); `.info` may be the first segment of a path that is read, never of a
/// path that is written.
public enum TreeValidation {
    /// The maximum number of keys from the root to any leaf.
    public static let maxDepth = 32
    /// The maximum UTF-8 length of a key path: the keys plus one `/` between each two.
    public static let maxPathBytes = 768
    /// The maximum UTF-8 length of a string value (10 MB).
    public static let maxStringBytes = 10 * 1024 * 1024
    /// The default limit of one serialized write from a client (16 MB).
    public static let maxWriteBytes = 16 * 1024 * 1024

    // MARK: - Keys

    /// Whether `key` is a valid key: non-empty, none of `.` `$` `#` `[` `]` `/`, and no ASCII
    /// control character (U+0000–U+001F, U+007F).
    public static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && forbiddenScalar(in: key) == nil
    }

    /// Checks a key; `path` is the location of the node that holds it, for the message.
    ///
    /// - Throws: ``TreeError/emptyKey(path:)`` or ``TreeError/invalidKey(key:character:path:)``.
    public static func validateKey(_ key: String, in path: Path = .root) throws(TreeError) {
        try validateKey(key, in: path.keys)
    }

    /// Checks a key held by the node at `keys`; the path text is built only for an error.
    private static func validateKey(_ key: String, in keys: [ChildKey]) throws(TreeError) {
        if key.isEmpty { throw .emptyKey(path: Path(keys: keys).wireString) }
        if let scalar = forbiddenScalar(in: key) {
            throw .invalidKey(key: key, character: scalar, path: Path(keys: keys).wireString)
        }
    }

    /// The first character of `key` that keys may not contain.
    private static func forbiddenScalar(in key: String) -> Unicode.Scalar? {
        for byte in key.utf8 {
            switch byte {
            case 0x00...0x1F, 0x7F, UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"),
                UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "/"):
                return Unicode.Scalar(byte)
            default:
                continue
            }
        }
        return nil
    }

    // MARK: - Paths

    /// Checks a path that is read (listened to, fetched): valid keys, `.info` allowed as the
    /// first key and `.priority` as the last, at most ``maxDepth`` keys and ``maxPathBytes``
    /// bytes (a trailing `.priority` is not counted).
    public static func validateReadPath(_ path: Path) throws(TreeError) {
        try validatePath(path, allowInfo: true)
    }

    /// Checks a path that is written: as ``validateReadPath(_:)`` but a path starting with
    /// `.info` is refused.
    ///
    /// - Throws: ``TreeError/infoNotWritable(path:)`` for `.info`, or the key/limit errors.
    public static func validateWritePath(_ path: Path) throws(TreeError) {
        try validatePath(path, allowInfo: false)
    }

    private static func validatePath(_ path: Path, allowInfo: Bool) throws(TreeError) {
        let keys = path.keys
        for (index, key) in keys.enumerated() {
            if index == 0 && key.string.utf8.elementsEqual(".info".utf8) {
                if allowInfo { continue }
                throw .infoNotWritable(path: path.wireString)
            }
            if key.isPriority {
                if index == keys.count - 1 { continue }
                throw .invalidPath(path: path.wireString, reason: ".priority may only be the last key")
            }
            try validateKey(key.string, in: Array(keys[..<index]))
        }
        let dataKeys = keys.last?.isPriority == true ? Array(keys.dropLast()) : keys
        try checkLimits(dataKeys, depth: dataKeys.count, bytes: byteLength(dataKeys))
    }

    /// The UTF-8 length of a key path: the keys plus one separator between each two.
    private static func byteLength(_ keys: [ChildKey]) -> Int {
        keys.reduce(max(keys.count - 1, 0)) { $0 + $1.string.utf8.count }
    }

    private static func checkLimits(_ keys: [ChildKey], depth: Int, bytes: Int) throws(TreeError) {
        if depth > maxDepth {
            throw .pathTooDeep(path: Path(keys: keys).wireString, depth: depth, limit: maxDepth)
        }
        if bytes > maxPathBytes {
            throw .pathTooLong(path: Path(keys: keys).wireString, bytes: bytes, limit: maxPathBytes)
        }
    }

    // MARK: - Priorities

    /// Checks a priority: `nil`, a string, a finite number or a server-value placeholder.
    /// `path` is the node whose priority it is.
    public static func validatePriority(_ priority: LeafValue?, at path: Path) throws(TreeError) {
        try validatePriority(priority, at: path.keys)
    }

    /// Checks the priority of the node at `keys`; the path text is built only for an error.
    private static func validatePriority(_ priority: LeafValue?, at keys: [ChildKey]) throws(TreeError) {
        switch priority {
        case nil, .string?, .int?, .serverValue?:
            return
        case .double(let d)?:
            if !d.isFinite { throw .nonFiniteNumber(path: Path(keys: keys + [.priority]).wireString) }
        case .bool(let b)?:
            throw .invalidPriority(path: Path(keys: keys + [.priority]).wireString, found: b ? "true" : "false")
        }
    }

    // MARK: - Written values

    /// Checks a node written at `path`: the path is writable, every key is valid, every leaf
    /// is at most ``maxDepth`` keys below the root and its key path at most ``maxPathBytes``
    /// bytes, strings are at most ``maxStringBytes``, numbers are finite, and priorities are
    /// valid. A write to `<path>/.priority` must be a valid priority (or empty).
    public static func validateWrite(_ node: Node, at path: Path) throws(TreeError) {
        try validateWritePath(path)
        if path.back?.isPriority == true {
            guard let parent = path.parent else { return }
            if node.isEmpty { return }
            guard node.isLeaf, node.priority == nil else {
                throw .invalidPriority(
                    path: path.wireString, found: node.isLeaf ? "a leaf with a priority" : "an object")
            }
            try validatePriority(node.leafValue, at: parent.keys)
            try validateLeaf(node, keys: path.keys)
            return
        }
        var keys = path.keys
        try validateTree(node, keys: &keys, bytes: byteLength(keys))
    }

    private static func validateTree(_ node: Node, keys: inout [ChildKey], bytes: Int) throws(TreeError) {
        if node.isEmpty { return }
        try checkLimits(keys, depth: keys.count, bytes: bytes)
        try validatePriority(node.priority, at: keys)
        switch node.content {
        case .leaf:
            try validateLeaf(node, keys: keys)
        case .children(let map):
            for (key, child) in map.entries {
                try validateKey(key.string, in: keys)
                let childBytes = bytes + key.string.utf8.count + (keys.isEmpty ? 0 : 1)
                keys.append(key)
                try validateTree(child, keys: &keys, bytes: childBytes)
                keys.removeLast()
            }
        }
    }

    private static func validateLeaf(_ node: Node, keys: [ChildKey]) throws(TreeError) {
        switch node.leafValue {
        case .string(let s)?:
            let length = s.utf8.count
            if length > maxStringBytes {
                throw .stringTooLong(path: Path(keys: keys).wireString, bytes: length, limit: maxStringBytes)
            }
        case .double(let d)?:
            if !d.isFinite { throw .nonFiniteNumber(path: Path(keys: keys).wireString) }
        default:
            return
        }
    }

    /// Checks JSON written at `path` and returns its node.
    ///
    /// In addition to ``validateWrite(_:at:)`` (applied to the resulting node) every object
    /// key in the JSON must be a valid key or one of `.priority`, `.value`, `.sv` — other
    /// dot-keys, which ``Node/init(json:)`` would silently ignore, are refused.
    public static func validatedNode(_ value: JSONValue, forWriteAt path: Path) throws(TreeError) -> Node {
        try validateWritePath(path)
        var keys = path.keys
        try validateJSONKeys(value, keys: &keys)
        let node: Node
        if path.back?.isPriority == true {
            let priority = try Node.convertPriority(value, path: path.wireString)
            node = priority.map { Node(leaf: $0) } ?? .empty
        } else {
            node = try Node(json: value, at: path)
        }
        try validateWrite(node, at: path)
        return node
    }

    private static func validateJSONKeys(_ value: JSONValue, keys: inout [ChildKey]) throws(TreeError) {
        switch value {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                keys.append(ChildKey(String(index)))
                try validateJSONKeys(element, keys: &keys)
                keys.removeLast()
            }
        case .object(let members):
            for member in members {
                let key = member.key.utf8
                if key.elementsEqual(".value".utf8) {
                    // The node's own value: its keys belong to this node.
                    try validateJSONKeys(member.value, keys: &keys)
                    continue
                }
                if key.elementsEqual(".priority".utf8) || key.elementsEqual(".sv".utf8) { continue }
                try validateKey(member.key, in: keys)
                keys.append(ChildKey(member.key))
                try validateJSONKeys(member.value, keys: &keys)
                keys.removeLast()
            }
        default:
            return
        }
    }

    // MARK: - Multi-path updates

    /// Checks a multi-path update at `path` (the members of an `update` / `m` object) and
    /// returns each member's path relative to `path` with its node, in input order.
    ///
    /// Each member key is a relative path (`"a/b"`, `"c/.priority"`); every target is checked
    /// like a write (``validatedNode(_:forWriteAt:)``), and no target may equal or contain
    /// another.
    ///
    /// - Throws: ``TreeError/overlappingPaths(ancestor:descendant:)`` for overlapping
    ///   targets, or the first key/path/value error.
    public static func validatedUpdate(
        _ members: [JSONMember], at path: Path
    ) throws(TreeError) -> [(path: Path, node: Node)] {
        var result: [(path: Path, node: Node)] = []
        result.reserveCapacity(members.count)
        for member in members {
            let relative = Path(member.key)
            if relative.isRoot {
                throw .invalidPath(
                    path: "\"" + member.key + "\"",
                    reason: "an update key must name a path below \(path.wireString)")
            }
            let node = try validatedNode(member.value, forWriteAt: path.child(relative))
            result.append((relative, node))
        }
        try validateDisjoint(result.map { path.child($0.path) })
        return result
    }

    /// Checks that no path in `paths` equals or is an ancestor of another.
    ///
    /// - Throws: ``TreeError/overlappingPaths(ancestor:descendant:)`` naming the first pair
    ///   found in path order.
    public static func validateDisjoint(_ paths: [Path]) throws(TreeError) {
        let sorted = paths.sorted()
        for (previous, current) in zip(sorted, sorted.dropFirst()) where previous.contains(current) {
            throw .overlappingPaths(ancestor: previous.wireString, descendant: current.wireString)
        }
    }

    // MARK: - Write size

    /// Checks the serialized size of one write against `limit` (``maxWriteBytes`` unless
    /// configured otherwise).
    ///
    /// - Throws: ``TreeError/writeTooBig(bytes:limit:)``.
    public static func validateWriteSize(byteCount: Int, limit: Int = maxWriteBytes) throws(TreeError) {
        if byteCount > limit { throw .writeTooBig(bytes: byteCount, limit: limit) }
    }
}
