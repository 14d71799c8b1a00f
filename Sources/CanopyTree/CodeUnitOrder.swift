/// Comparisons of strings by their exact code units.
///
/// Swift's own `String` comparison applies Unicode canonical equivalence; the database compares
/// keys and string values by UTF-16 code units, as JavaScript's `<` does.
public enum CodeUnitOrder {
    /// Compares two strings by UTF-16 code units: negative when `a` sorts first, zero when the
    /// code units are identical, positive when `b` sorts first.
    ///
    /// UTF-8 byte order equals code point order, which equals UTF-16 order except that code
    /// points above U+FFFF (surrogate pairs in UTF-16) sort before U+E000…U+FFFF. The loop
    /// compares bytes and fixes up that one case at the first difference.
    @inlinable
    public static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { ua in
            b.withUTF8 { ub in compareUTF8(ua, ub) }
        }
    }

    /// Compares two UTF-8 buffers by the UTF-16 code-unit order of the text they hold.
    @inlinable
    public static func compareUTF8(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i]
            let y = b[i]
            if x != y {
                // Find the lead byte of the character that differs.
                var lead = i
                while lead > 0 && a[lead] & 0xC0 == 0x80 { lead -= 1 }
                let la = a[lead]
                let lb = b[lead]
                let aSupplementary = la >= 0xF0
                let bSupplementary = lb >= 0xF0
                // U+E000...U+FFFF start with 0xEE or 0xEF.
                if aSupplementary && !bSupplementary && lb >= 0xEE { return -1 }
                if bSupplementary && !aSupplementary && la >= 0xEE { return 1 }
                return x < y ? -1 : 1
            }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Whether two strings have identical code units.
    @inlinable
    public static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { ua in
            b.withUTF8 { ub in ua.elementsEqual(ub) }
        }
    }
}
