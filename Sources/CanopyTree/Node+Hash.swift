/// The node hash (protocol.md §6.1, "v1").
extension Node {
    /// The node's hash: `""` for the empty node, else the standard base64 (28 characters) of
    /// the SHA-1 of the UTF-8 hash string.
    ///
    /// - A leaf's string is an optional `priority:<P>:` prefix, then `<type>:<value>` with
    ///   type `number` (16 lowercase hex digits of the IEEE-754 double; integers are
    ///   converted to double), `string` (raw text) or `boolean` (`true`/`false`).
    /// - A children node's string is the optional priority prefix, then `:<key>:<hash>` for
    ///   each child in priority order (no priority first, then numeric priorities ascending,
    ///   then string priorities by UTF-16 code units; ties by key order).
    /// - `<P>` is `number:<hex>` or `string:<text>`.
    ///
    /// Server-value placeholders are never part of data a hash is compared against (they
    /// are resolved before anything is cached or stored). They are hashed the way the
    /// JavaScript client hashes them: a placeholder leaf as `object:[object Object]`, a
    /// placeholder priority as `string:[object Object]`; a placeholder priority sorts after
    /// "no priority" and before numeric priorities.
    ///
    /// Computed on demand, recursively: cost is linear in the size of the subtree.
    public var hash: String {
        if isEmpty { return "" }
        return Base64.encode(SHA1.digest(hashString.utf8))
    }

    /// The string whose SHA-1 is ``hash`` (empty for the empty node).
    public var hashString: String {
        var text = ""
        if let priority {
            text += "priority:"
            text += Node.priorityHashText(priority)
            text += ":"
        }
        switch content {
        case .leaf(let value):
            text += Node.leafHashText(value)
        case .children(let map):
            for (key, child) in Node.hashOrder(map) {
                let childHash = child.hash
                if childHash.isEmpty { continue }
                text += ":"
                text += key.string
                text += ":"
                text += childHash
            }
        }
        return text
    }

    /// `<type>:<value>` for a leaf value.
    private static func leafHashText(_ value: LeafValue) -> String {
        switch value {
        case .bool(let b): return b ? "boolean:true" : "boolean:false"
        case .int(let i): return "number:" + hex(Double(i))
        case .double(let d): return "number:" + hex(d)
        case .string(let s): return "string:" + s
        case .serverValue: return "object:[object Object]"
        }
    }

    /// `number:<hex>` or `string:<text>` for a priority.
    private static func priorityHashText(_ priority: LeafValue) -> String {
        switch priority {
        case .int(let i): return "number:" + hex(Double(i))
        case .double(let d): return "number:" + hex(d)
        case .string(let s): return "string:" + s
        case .bool(let b): return b ? "string:true" : "string:false"
        case .serverValue: return "string:[object Object]"
        }
    }

    /// The 16 lowercase hex digits of the big-endian IEEE-754 encoding of `d`.
    private static func hex(_ d: Double) -> String {
        let digits = String(d.bitPattern, radix: 16, uppercase: false)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The children in priority order (key order when no child has a priority); see
    /// ``ValueOrder/comparePriorities(_:_:)``.
    private static func hashOrder(_ map: ChildMap) -> [(ChildKey, Node)] {
        let entries = Array(map.entries)
        guard entries.contains(where: { $0.1.priority != nil }) else { return entries }
        return entries.sorted { a, b in
            let c = ValueOrder.comparePriorities(a.1.priority, b.1.priority)
            return c != 0 ? c < 0 : ChildKey.compare(a.0, b.0) < 0
        }
    }
}
