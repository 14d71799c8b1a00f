/// Decodes the `%XX` escapes of URL components (RFC 3986). A `+` stays a `+`: REST clients
/// encode spaces as `%20`, and a literal `+` in a key or a JSON parameter must survive.
enum PercentDecoder {
    /// The text with every `%XX` replaced by the byte it names, read as UTF-8.
    ///
    /// - Throws: ``RESTError`` (400) when a `%` is not followed by two hexadecimal digits or
    ///   the decoded bytes are not valid UTF-8; `component` names the part for the message.
    static func decode(_ text: some StringProtocol, component: String) throws(RESTError) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
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
                throw .badRequest("Invalid percent-encoding in the \(component)")
            }
            bytes.append(high << 4 | low)
            index += 3
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest("The \(component) is not valid UTF-8 after percent-decoding")
        }
        return decoded
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
