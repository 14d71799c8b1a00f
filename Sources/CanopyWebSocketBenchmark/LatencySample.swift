/// Round-trip times in nanoseconds and their order statistics.
struct LatencySample {
    private(set) var nanoseconds: [Int64] = []

    mutating func record(_ duration: Duration) {
        let parts = duration.components
        nanoseconds.append(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    }

    /// The value at quantile `q` (0…1) in microseconds.
    func quantile(_ q: Double) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))
        return Double(sorted[rank]) / 1000
    }

    var median: Double { quantile(0.5) }
    var p99: Double { quantile(0.99) }
}
