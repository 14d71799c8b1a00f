/// When the engine reconnects after a connection ends (protocol.md §2.5): randomised
/// exponential backoff.
///
/// The first connection is made at once. After a connection ends the engine waits a delay
/// drawn from the current backoff, then grows the backoff by ``multiplier`` up to
/// ``maxDelay``. A connection that lasted longer than ``resetAfter`` resets the backoff to
/// ``initialDelay``. All timings are injectable so tests can run with milliseconds.
public struct ReconnectPolicy: Sendable {
    /// The backoff after the first failure (1 s).
    public var initialDelay: Duration
    /// The growth factor per failure (1.3).
    public var multiplier: Double
    /// The largest backoff (30 s).
    public var maxDelay: Duration
    /// A connection lasting longer than this resets the backoff (30 s).
    public var resetAfter: Duration
    /// The share of the backoff that is randomised away: the wait is drawn uniformly from
    /// `backoff × (1 − jitter) … backoff` (0.5).
    public var jitter: Double
    /// A uniform random number in `0..<1`, for the jitter.
    public var random: @Sendable () -> Double

    /// Creates a policy; the defaults are the reference clients'.
    public init(
        initialDelay: Duration = .seconds(1), multiplier: Double = 1.3, maxDelay: Duration = .seconds(30),
        resetAfter: Duration = .seconds(30), jitter: Double = 0.5,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.resetAfter = resetAfter
        self.jitter = jitter
        self.random = random
    }

    /// The wait before the next attempt, given the current backoff.
    public func wait(for backoff: Duration) -> Duration {
        let share = 1 - min(max(jitter, 0), 1) * min(max(random(), 0), 1)
        return backoff * share
    }

    /// The backoff after one more failure.
    public func grown(_ backoff: Duration) -> Duration {
        min(maxDelay, backoff * multiplier)
    }
}
