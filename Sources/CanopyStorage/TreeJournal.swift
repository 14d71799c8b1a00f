import CanopyTree

/// The format of the append-only journal of a ``JSONFileTreeStore``: one JSON document per
/// line.
///
/// The first line is a header naming the tree file the journal applies to:
/// `{"base":"<FNV-1a 64 of tree.json's bytes, hex>","length":<its byte count>}` (a missing
/// tree file has length 0). Every further line is one write, with paths as arrays of keys and
/// nodes in export form:
/// `{"p":["a","b"],"o":<node>}` for an overwrite, `{"p":[…],"m":[[["c"],<node>],…]}` for a
/// merge. A journal whose header does not match the tree file is stale: its writes are
/// already in the tree.
enum TreeJournal {
    /// Identifies a tree file's exact content.
    struct Header: Equatable {
        /// FNV-1a 64 of the tree file's bytes.
        var hash: UInt64
        /// The tree file's length in bytes.
        var length: Int

        /// The header for a tree file with `bytes` (`nil`: no tree file yet).
        init(tree bytes: [UInt8]?) {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes ?? [] {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            self.hash = hash
            length = bytes?.count ?? 0
        }

        init(hash: UInt64, length: Int) {
            self.hash = hash
            self.length = length
        }
    }

    /// What a journal file holds.
    struct Contents {
        /// The header, `nil` when the file has no complete header line.
        var header: Header?
        /// The complete, well-formed writes in order.
        var writes: [TreeWrite]
        /// The length of the well-formed prefix (header and complete writes); anything after
        /// it is a torn append.
        var validLength: Int
    }

    /// The header line, newline included.
    static func line(for header: Header) -> [UInt8] {
        let hex = String(header.hash, radix: 16)
        let json = JSONValue.object([
            JSONMember("base", .string(String(repeating: "0", count: 16 - hex.count) + hex)),
            JSONMember("length", .int(Int64(header.length))),
        ])
        return json.serializedBytes() + [0x0A]
    }

    /// The line of one write, newline included.
    static func line(for write: TreeWrite) -> [UInt8] {
        let json: JSONValue
        switch write {
        case .overwrite(let path, let node):
            json = .object([JSONMember("p", keys(path)), JSONMember("o", node.exportJSON())])
        case .merge(let path, let children):
            let entries = children.map { JSONValue.array([keys($0.0), $0.1.exportJSON()]) }
            json = .object([JSONMember("p", keys(path)), JSONMember("m", .array(entries))])
        }
        return json.serializedBytes() + [0x0A]
    }

    /// Decodes a journal file. A malformed last line is a torn append and is left out; a
    /// malformed line followed by well-formed ones cannot come from a crash and throws
    /// ``StorageError/Kind-swift.enum/corrupt``.
    static func decode(_ bytes: [UInt8]) throws(StorageError) -> Contents {
        var lines: [Range<Int>] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            lines.append(start..<index)
            start = index + 1
        }
        guard let first = lines.first, let header = header(bytes[first]) else {
            return Contents(header: nil, writes: [], validLength: 0)
        }
        var writes: [TreeWrite] = []
        var validLength = first.upperBound + 1
        for (offset, range) in lines.enumerated().dropFirst() {
            guard let write = write(bytes[range]) else {
                if offset == lines.count - 1 { break }
                throw StorageError(kind: .corrupt, message: "journal line \(offset + 1) is not a write")
            }
            writes.append(write)
            validLength = range.upperBound + 1
        }
        return Contents(header: header, writes: writes, validLength: validLength)
    }

    private static func header(_ line: ArraySlice<UInt8>) -> Header? {
        guard let json = try? JSONParser.parse(line),
            let hex = json["base"]?.stringValue, let hash = UInt64(hex, radix: 16),
            case .int(let length)? = json["length"], length >= 0
        else { return nil }
        return Header(hash: hash, length: Int(length))
    }

    private static func write(_ line: ArraySlice<UInt8>) -> TreeWrite? {
        guard let json = try? JSONParser.parse(line), let path = path(json["p"]) else { return nil }
        if let node = json["o"] {
            guard let node = try? Node(json: node) else { return nil }
            return .overwrite(path, node)
        }
        guard case .array(let entries)? = json["m"] else { return nil }
        var children: [(Path, Node)] = []
        for entry in entries {
            guard case .array(let pair) = entry, pair.count == 2, let relative = self.path(pair[0]),
                let node = try? Node(json: pair[1])
            else { return nil }
            children.append((relative, node))
        }
        return .merge(path, children)
    }

    private static func keys(_ path: Path) -> JSONValue {
        .array(path.keys.map { .string($0.string) })
    }

    private static func path(_ json: JSONValue?) -> Path? {
        guard case .array(let elements)? = json else { return nil }
        var keys: [ChildKey] = []
        for element in elements {
            guard let key = element.stringValue else { return nil }
            keys.append(ChildKey(key))
        }
        return Path(keys: keys)
    }
}
