/// Why a byte sequence is not a JSON document, and where in it the problem lies.
///
/// ``offset`` is a byte offset into the UTF-8 input. Unless a ``Reason`` says otherwise it
/// is the first byte that cannot be accepted, or the input's length when the input ends
/// too early.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of malformed input the parser reports.
    public enum Reason: Sendable, Equatable {
        /// The input ended where more JSON was required (this includes empty input).
        case unexpectedEnd
        /// A byte that cannot start or continue the expected token.
        case unexpectedCharacter(UInt8)
        /// Non-whitespace bytes follow a complete JSON value.
        case trailingCharacters
        /// A string has no closing quote; the offset is its opening quote.
        case unterminatedString
        /// An unescaped control character (U+0000–U+001F) inside a string.
        case controlCharacterInString
        /// A backslash followed by a character that is not a JSON escape; the offset is the
        /// backslash.
        case invalidEscape
        /// A `\u` escape without four hexadecimal digits; the offset is the backslash.
        case invalidUnicodeEscape
        /// A `\u` escape naming a surrogate that is not part of a high–low pair; the offset
        /// is the escape's backslash.
        case loneSurrogate
        /// Bytes that are not well-formed UTF-8; the offset is the first byte of the
        /// ill-formed sequence.
        case invalidUTF8
        /// A number with a superfluous leading zero (`01`, `-00`); the offset is the start of
        /// the number.
        case leadingZero
        /// A number that is too large in magnitude for a finite `Double`; the offset is the
        /// start of the number.
        case numberOutOfRange
        /// Arrays and objects nest deeper than ``JSONParser/maximumDepth``; the offset is the
        /// bracket that opens one level too many.
        case nestingTooDeep
    }

    /// What is wrong.
    public var reason: Reason
    /// The byte offset in the input the ``reason`` refers to.
    public var offset: Int

    /// Creates an error of `reason` at byte `offset`.
    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A human-readable message such as `unexpected character 'x' at byte 17`.
    public var description: String {
        switch reason {
        case .unexpectedEnd: return "unexpected end of input at byte \(offset)"
        case .unexpectedCharacter(let byte):
            return "unexpected character \(JSONError.describe(byte)) at byte \(offset)"
        case .trailingCharacters: return "unexpected trailing characters at byte \(offset)"
        case .unterminatedString: return "unterminated string starting at byte \(offset)"
        case .controlCharacterInString: return "unescaped control character in string at byte \(offset)"
        case .invalidEscape: return "invalid escape sequence at byte \(offset)"
        case .invalidUnicodeEscape: return "invalid \\u escape at byte \(offset)"
        case .loneSurrogate: return "unpaired UTF-16 surrogate escape at byte \(offset)"
        case .invalidUTF8: return "invalid UTF-8 at byte \(offset)"
        case .leadingZero: return "number with a leading zero at byte \(offset)"
        case .numberOutOfRange: return "number out of range at byte \(offset)"
        case .nestingTooDeep: return "nesting deeper than \(JSONParser.maximumDepth) levels at byte \(offset)"
        }
    }

    /// `'x'` for printable ASCII, `0xC3` otherwise.
    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0\(hex)" : "0x\(hex)"
    }
}
