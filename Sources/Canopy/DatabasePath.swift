import CanopyTree

/// Validation of the paths, values and updates the public API receives, reported as
/// ``DatabaseError``s with code `DatabaseError.Code.invalidArgument`.
enum DatabasePath {
    /// The location `path` (slash-separated, empty segments ignored) below `base`, checked as
    /// a readable path: valid keys, at most 32 keys and 768 bytes, `.info` only first.
    static func child(_ path: String, of base: Path) throws(DatabaseError) -> Path {
        let full = base.child(Path(path))
        do {
            try TreeValidation.validateReadPath(full)
        } catch {
            throw DatabaseError(validating: error)
        }
        return full
    }

    /// `path` parsed relative to `base` after checking that `base/path` is a valid location.
    static func relative(_ path: String, below base: Path) throws(DatabaseError) -> Path {
        let relative = Path(path)
        _ = try child(path, of: base)
        return relative
    }

    /// The node for `json` written at `path`, after every write check.
    static func validatedNode(_ json: JSONValue, forWriteAt path: Path) throws(DatabaseError) -> Node {
        do {
            return try TreeValidation.validatedNode(json, forWriteAt: path)
        } catch {
            throw DatabaseError(validating: error)
        }
    }

    /// The node for a user value written at `path`, with `priority` when given.
    static func node(from value: Any?, priority: Any? = nil, forWriteAt path: Path) throws(DatabaseError) -> Node {
        let json = try NativeValue.json(from: value, at: path)
        let node = try validatedNode(json, forWriteAt: path)
        guard let priority else { return node }
        let leaf = try NativeValue.priority(from: priority, at: path)
        return node.withPriority(leaf)
    }

    /// The members of a multi-path update at `path`: relative paths (keys may contain `/`)
    /// with their nodes, checked for valid keys, values and non-overlapping targets.
    static func update(_ values: [AnyHashable: Any], at path: Path) throws(DatabaseError) -> [(path: Path, node: Node)]
    {
        var members: [JSONMember] = []
        members.reserveCapacity(values.count)
        for (key, value) in values {
            guard let name = key.base as? String else {
                throw DatabaseError.invalidArgument(
                    "Invalid update key \(key) at \(path.wireString): update keys must be strings")
            }
            members.append(JSONMember(name, try NativeValue.json(from: value, at: path.child(Path(name)))))
        }
        do {
            try TreeValidation.validateWritePath(path)
            return try TreeValidation.validatedUpdate(members, at: path)
        } catch {
            throw DatabaseError(validating: error)
        }
    }
}
