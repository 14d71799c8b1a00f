/// SplitMix64: a small deterministic generator, so every benchmark run measures the same
/// documents and applies the same updates.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `options` (which must not be empty).
    public mutating func pick<T>(_ options: [T]) -> T {
        options[Int(next() % UInt64(options.count))]
    }

    /// A number in `0..<bound` (`bound` must be positive).
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// A number in `0..<1` with 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
