/// Decodes the `%XX` escapes of URL components (RFC 3986). A `+` stays a `+`: REST clients
/// encode spaces as `%20`, and a literal `+` in a key, a JSON parameter or a base64 token
/// must survive.
///
/// ``decode(_:)`` is strict (the REST API answers 400 for a bad escape);
/// ``decodeLeniently(_:)`` keeps what does not decode, for `/.ws` query strings written by
/// clients that do not percent-encode.
public enum PercentDecoder {
    /// Why strict decoding failed.
    public enum Failure: Error, Sendable, Equatable {
        /// A `%` is not followed by two hexadecimal digits.
        case invalidEscape
        /// The decoded bytes are not valid UTF-8.
        case invalidUTF8
    }

    /// The text with every `%XX` replaced by the byte it names, read as UTF-8.
    ///
    /// - Throws: ``Failure/invalidEscape`` when a `%` is not followed by two hexadecimal
    ///   digits, ``Failure/invalidUTF8`` when the decoded bytes are not valid UTF-8.
    public static func decode(_ text: some StringProtocol) throws(Failure) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        guard let bytes = decodedBytes(utf8, keepingInvalidEscapes: false) else { throw .invalidEscape }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return decoded
    }

    /// The text with every valid `%XX` replaced by the byte it names; a `%` that does not
    /// start a valid escape stays as is, and the text is returned unchanged when the decoded
    /// bytes are not valid UTF-8.
    public static func decodeLeniently(_ text: some StringProtocol) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "%")),
            let bytes = decodedBytes(utf8, keepingInvalidEscapes: true),
            let decoded = String(validating: bytes, as: UTF8.self)
        else { return String(text) }
        return decoded
    }

    /// `utf8` with its escapes decoded; `nil` at an invalid escape unless those are kept.
    private static func decodedBytes(_ utf8: [UInt8], keepingInvalidEscapes: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                index += 1
                continue
            }
            guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            else {
                guard keepingInvalidEscapes else { return nil }
                bytes.append(byte)
                index += 1
                continue
            }
            bytes.append(high << 4 | low)
            index += 3
        }
        return bytes
    }

    /// The value of one hexadecimal digit.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
