import CanopyTestSupport
import CanopyTree
import Testing

/// A random source that returns prepared words, then repeats the last one.
struct ScriptedRandom: RandomNumberGenerator, Sendable {
    var words: [UInt64]
    mutating func next() -> UInt64 {
        words.count > 1 ? words.removeFirst() : words[0]
    }
}

@Suite struct PushIDGeneratorTests {
    private let alphabet = Array(PushIDGenerator.alphabet.utf8)

    /// Packs digits (0…63) into the words the generator reads: ten digits per word, low bits
    /// first.
    private func words(for digits: [Int]) -> [UInt64] {
        var first: UInt64 = 0
        for (i, d) in digits.prefix(10).enumerated() { first |= UInt64(d) << UInt64(6 * i) }
        var second: UInt64 = 0
        for (i, d) in digits.dropFirst(10).enumerated() { second |= UInt64(d) << UInt64(6 * i) }
        return [first, second]
    }

    private func digits(_ text: String) -> [Int] {
        text.utf8.map { byte in alphabet.firstIndex(of: byte) ?? -1 }
    }

    @Test(arguments: [
        (Int64(0), "--------"), (1_700_000_000_000, "-NjEtLV-"), (1_735_689_600_000, "-OFU9Mk-"),
    ])
    func timestampDigits(_ time: Int64, _ prefix: String) {
        var generator = PushIDGenerator(clock: { time }, random: SeededGenerator(seed: 1))
        let id = generator.next()
        #expect(id.utf8.count == 20)
        #expect(id.hasPrefix(prefix))
        #expect(PushIDGenerator.timestamp(of: id) == time)
        #expect(id.utf8.allSatisfy { alphabet.contains($0) })
    }

    @Test func alphabetIsInASCIIOrder() {
        #expect(alphabet.count == 64)
        #expect(alphabet == alphabet.sorted())
    }

    @Test func randomDigitsComeFromTheRandomSource() {
        let wanted = "0123456789AB"
        var generator = PushIDGenerator(clock: { 0 }, random: ScriptedRandom(words: words(for: digits(wanted))))
        #expect(generator.next() == "--------" + wanted)
    }

    @Test func sameMillisecondIncrementsWithCarry() {
        var generator = PushIDGenerator(
            clock: { 1_700_000_000_000 }, random: ScriptedRandom(words: words(for: digits("49zzzzzzzzzz"))))
        #expect(generator.next() == "-NjEtLV-49zzzzzzzzzz")
        #expect(generator.next() == "-NjEtLV-4A----------")
        #expect(generator.next() == "-NjEtLV-4A---------0")
    }

    @Test func newMillisecondDrawsFreshDigits() {
        var generator = PushIDGenerator(clock: { 0 }, random: ScriptedRandom(words: [0, 0, 1, 0]))
        #expect(generator.next(timestamp: 5) == "-------4" + "------------")
        let second = generator.next(timestamp: 6)
        #expect(second == "-------5" + "0-----------")
    }

    @Test func tenThousandInOneMillisecondStrictlyIncrease() {
        var generator = PushIDGenerator(clock: { 1_735_689_600_000 }, random: SeededGenerator(seed: 42))
        let ids = (0..<10_000).map { _ in generator.next() }
        let pairs = Array(zip(ids, ids.dropFirst()))
        #expect(pairs.allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(pairs.allSatisfy { ChildKey.compare(ChildKey($0), ChildKey($1)) < 0 })
        #expect(ids.allSatisfy { $0.hasPrefix("-OFU9Mk-") })
    }

    @Test func idsSortByTimeAcrossMilliseconds() {
        var generator = PushIDGenerator(clock: { 0 }, random: SeededGenerator(seed: 7))
        var random = SeededGenerator(seed: 99)
        var time: Int64 = 1_600_000_000_000
        var ids: [String] = []
        for _ in 0..<2_000 {
            time += Int64(random.next() % 3)  // sometimes the same millisecond
            ids.append(generator.next(timestamp: time))
        }
        #expect(ids == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(Set(ids).count == ids.count)
    }

    @Test func outOfRangeTimesAreClamped() {
        var generator = PushIDGenerator(clock: { -5 }, random: SeededGenerator(seed: 3))
        #expect(generator.next().hasPrefix("--------"))
        #expect(generator.next(timestamp: .max).hasPrefix("zzzzzzzz"))
        #expect(PushIDGenerator.timestamp(of: "short") == nil)
        #expect(PushIDGenerator.timestamp(of: "-NjEtLV.") == nil)
    }
}
