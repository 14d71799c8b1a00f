/// Why a key, path, value or write is not acceptable to the database.
///
/// Every case carries the offending text (key, path, value) so that ``message`` can name it.
/// Paths are given in their wire form (leading slash, `/` for the root).
public enum TreeError: Error, Sendable, Equatable {
    /// A key is the empty string. `path` is the location of the node that holds it.
    case emptyKey(path: String)
    /// A key contains a character that keys may not contain (`.` `$` `#` `[` `]` `/` or an
    /// ASCII control character). `path` is the location of the node that holds it.
    case invalidKey(key: String, character: Unicode.Scalar, path: String)
    /// A path is not usable for this operation; `reason` says why.
    case invalidPath(path: String, reason: String)
    /// A path, or a leaf inside written data, is more than `limit` keys deep.
    case pathTooDeep(path: String, depth: Int, limit: Int)
    /// The UTF-8 encoding of a key path (keys plus separators) is longer than `limit` bytes.
    case pathTooLong(path: String, bytes: Int, limit: Int)
    /// A string value at `path` is longer than `limit` bytes of UTF-8.
    case stringTooLong(path: String, bytes: Int, limit: Int)
    /// A serialized write of `bytes` bytes exceeds the configured `limit`.
    case writeTooBig(bytes: Int, limit: Int)
    /// The priority at `path` is not a string, a finite number, `null` or a placeholder;
    /// `found` describes what was there.
    case invalidPriority(path: String, found: String)
    /// A number at `path` is NaN or infinite.
    case nonFiniteNumber(path: String)
    /// A `{".sv": …}` object at `path` is not a known server value; `found` describes it.
    case invalidServerValue(path: String, found: String)
    /// The object at `path` has a non-null `.value` and also real children.
    case valueWithChildren(path: String)
    /// A write targets `.info`, which is client-local and read-only.
    case infoNotWritable(path: String)
    /// Two paths of one multi-path update overlap: `ancestor` equals or contains
    /// `descendant`.
    case overlappingPaths(ancestor: String, descendant: String)
}

extension TreeError: CustomStringConvertible {
    /// A human-readable explanation naming the offending key, path or value.
    public var message: String {
        switch self {
        case .emptyKey(let path):
            return "Invalid key at \(path): keys must be non-empty strings"
        case .invalidKey(let key, let character, let path):
            return "Invalid key \"\(TreeError.printable(key))\" at \(path): keys must not contain "
                + "\(TreeError.describe(character)) (no \".\", \"$\", \"#\", \"[\", \"]\", \"/\" "
                + "or ASCII control characters)"
        case .invalidPath(let path, let reason):
            return "Invalid path \(TreeError.printable(path)): \(reason)"
        case .pathTooDeep(let path, let depth, let limit):
            return "Path \(TreeError.printable(path)) is \(depth) keys deep, more than the maximum depth of \(limit)"
        case .pathTooLong(let path, let bytes, let limit):
            return "Path \(TreeError.printable(path)) has a key path of \(bytes) bytes, longer than \(limit) bytes"
        case .stringTooLong(let path, let bytes, let limit):
            return "The string at \(TreeError.printable(path)) is \(bytes) UTF-8 bytes, more than \(limit)"
        case .writeTooBig(let bytes, let limit):
            return "The write is \(bytes) bytes serialized, more than the limit of \(limit) (write_too_big)"
        case .invalidPriority(let path, let found):
            return "Invalid priority \(found) at \(TreeError.printable(path)): "
                + "a priority must be a string, a finite number or null"
        case .nonFiniteNumber(let path):
            return "The number at \(TreeError.printable(path)) is NaN or infinite"
        case .invalidServerValue(let path, let found):
            return "Invalid server value \(found) at \(TreeError.printable(path)): expected "
                + "{\".sv\": \"timestamp\"} or {\".sv\": {\"increment\": <number>}}"
        case .valueWithChildren(let path):
            return "The object at \(TreeError.printable(path)) has a \".value\" together with other children"
        case .infoNotWritable(let path):
            return "Cannot write to \(TreeError.printable(path)): .info is read-only"
        case .overlappingPaths(let ancestor, let descendant):
            return "Path \(TreeError.printable(ancestor)) is an ancestor of \(TreeError.printable(descendant))"
        }
    }

    /// Same as ``message``.
    public var description: String { message }

    /// The text with control characters written as `\u{…}` escapes, so a message stays on
    /// one line and shows what was there.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += describe(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A short description of a JSON value for a message: scalars as written (long strings
    /// cut), arrays and objects by kind.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s):
            let cut = s.unicodeScalars.count > 40
            let shown = cut ? String(String.UnicodeScalarView(s.unicodeScalars.prefix(40))) + "…" : s
            return "\"" + printable(shown) + "\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// `"."` for a printable character, `U+0001` for a control character.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x20 || scalar.value == 0x7F {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return "\"" + String(scalar) + "\""
    }
}
