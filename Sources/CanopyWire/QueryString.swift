/// Lenient query strings for the `/.ws` URL.
///
/// JavaScript clients do not percent-encode values, so values are decoded with
/// ``PercentDecoder/decodeLeniently(_:)``: a `%` that does not start a valid escape, or a value
/// that does not decode to UTF-8, stays as is; `+` stays `+` (tokens are base64 and may
/// contain it).
enum QueryString {
    /// Splits `a=1&b=2` into pairs in order; a name without `=` has an empty value.
    static func parse(_ query: Substring) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            if let equals = item.firstIndex(of: "=") {
                return (
                    PercentDecoder.decodeLeniently(item[..<equals]),
                    PercentDecoder.decodeLeniently(item[item.index(after: equals)...]))
            }
            return (PercentDecoder.decodeLeniently(item), "")
        }
    }

    /// Joins pairs into a query string, percent-encoding everything but unreserved characters.
    static func format(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ":"):
                out.append(byte)
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
