import CanopyTree
import Testing

@Suite struct ChildKeyTests {
    @Test func documentedOrder() {
        let keys: [ChildKey] = ["-1", "0", "1", "01", "2", "10", "2147483648", "a", "b"]
        for (i, a) in keys.enumerated() {
            for (j, b) in keys.enumerated() {
                #expect((ChildKey.compare(a, b) < 0) == (i < j), "\(a) vs \(b)")
            }
        }
    }

    @Test func sentinels() {
        #expect(ChildKey.min < "-2147483648")
        #expect(ChildKey("zzz") < ChildKey.max)
    }

    @Test func utf16OrderNotScalarOrder() {
        // U+1F600 (surrogates D83D DE00) sorts before U+FFFD in UTF-16 order.
        #expect(ChildKey("\u{1F600}") < ChildKey("\u{FFFD}"))
        #expect(ChildKey("\u{00E9}") != ChildKey("e\u{0301}"))
    }
}
