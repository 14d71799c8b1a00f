/// Tests on eight bytes at a time (one `UInt64` word) used by ``JSONParser`` and
/// ``JSONSerializer`` to pass over the plain runs of a string quickly.
enum JSONWordScan {
    /// `0x01` in every byte lane.
    static let byteLanes: UInt64 = 0x0101_0101_0101_0101
    /// The high bit of every byte lane: a word ANDed with it is non-zero when a byte is not ASCII.
    static let highBitLanes: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is a quote, a backslash or a control character (below 0x20).
    @inline(__always)
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        // A lane is flagged when it is a quote, a backslash or below 0x20 (exact for "any lane").
        let quotes = word ^ (byteLanes &* 0x22)
        let backslashes = word ^ (byteLanes &* 0x5C)
        let special =
            ((quotes &- byteLanes) & ~quotes)
            | ((backslashes &- byteLanes) & ~backslashes)
            | ((word &- byteLanes &* 0x20) & ~word)
        return special & highBitLanes != 0
    }
}
