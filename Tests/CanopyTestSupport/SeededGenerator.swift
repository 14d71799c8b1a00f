import CanopyBenchmarkSupport

/// The seeded generator of randomized tests: SplitMix64, the generator the benchmarks use, so
/// a test replays exactly from its seed.
public typealias SeededGenerator = SplitMix64
