import CanopyTree

/// The byte encoding of a path used as a storage key, chosen so that a location and all of
/// its descendants form one contiguous range of keys under byte-wise (`memcmp`) order.
///
/// Each key's UTF-8 bytes are written with the bytes `0x01` and `0x02` escaped as
/// `0x02 0x03` and `0x02 0x04`, then terminated by the separator `0x01`. The separator is
/// lower than any other byte that can follow a key's text, so the keys below path `P` are
/// exactly those `k` with `encode(P) <= k < upperBound(encode(P))`. The root encodes to no
/// bytes, and its range is every key.
enum StoragePathKey {
    /// Ends every encoded key.
    static let separator: UInt8 = 0x01
    /// Introduces an escaped byte.
    static let escape: UInt8 = 0x02

    /// The encoding of `path`.
    static func encode(_ path: Path) -> [UInt8] {
        var bytes: [UInt8] = []
        for key in path.keys { append(key, to: &bytes) }
        return bytes
    }

    /// Appends the encoding of one key (with its separator).
    static func append(_ key: ChildKey, to bytes: inout [UInt8]) {
        for byte in key.string.utf8 {
            switch byte {
            case separator:
                bytes.append(escape)
                bytes.append(0x03)
            case escape:
                bytes.append(escape)
                bytes.append(0x04)
            default: bytes.append(byte)
            }
        }
        bytes.append(separator)
    }

    /// The length of one key's encoding (with its separator).
    static func encodedLength(_ key: ChildKey) -> Int {
        var count = 1
        for byte in key.string.utf8 { count += (byte == separator || byte == escape) ? 2 : 1 }
        return count
    }

    /// The exclusive upper bound of the range below the non-root encoded path `encoded`.
    static func upperBound(_ encoded: [UInt8]) -> [UInt8] {
        var bound = encoded
        bound[bound.count - 1] = separator + 1
        return bound
    }

    /// The encoded keys of the ancestors of `path` from the root down, excluding `path`.
    static func ancestors(of path: Path) -> [[UInt8]] {
        guard !path.isRoot else { return [] }
        var result: [[UInt8]] = [[]]
        var bytes: [UInt8] = []
        for key in path.keys.dropLast() {
            append(key, to: &bytes)
            result.append(bytes)
        }
        return result
    }

    /// Replaces the content of `result` with the escaped key segments of `bytes` (without
    /// separators).
    static func segments(_ bytes: ArraySlice<UInt8>, into result: inout [ArraySlice<UInt8>]) throws(StorageError) {
        result.removeAll(keepingCapacity: true)
        guard !bytes.isEmpty else { return }
        guard bytes.last == separator else {
            throw StorageError(kind: .corrupt, message: "a stored path key does not end with a separator")
        }
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == separator {
            result.append(bytes[start..<index])
            start = index + 1
        }
    }

    /// The key an escaped segment encodes.
    static func key(_ segment: ArraySlice<UInt8>) throws(StorageError) -> ChildKey {
        guard segment.contains(escape) else { return ChildKey(String(decoding: segment, as: UTF8.self)) }
        var raw: [UInt8] = []
        raw.reserveCapacity(segment.count)
        var escaping = false
        for byte in segment {
            if escaping {
                switch byte {
                case 0x03: raw.append(separator)
                case 0x04: raw.append(escape)
                default: throw StorageError(kind: .corrupt, message: "a stored path key has a bad escape")
                }
                escaping = false
            } else if byte == escape {
                escaping = true
            } else {
                raw.append(byte)
            }
        }
        guard !escaping else { throw StorageError(kind: .corrupt, message: "a stored path key has a bad escape") }
        return ChildKey(String(decoding: raw, as: UTF8.self))
    }
}
