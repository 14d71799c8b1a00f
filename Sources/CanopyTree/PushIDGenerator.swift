/// Generates push ids: 20-character keys that sort by creation time (protocol.md §7).
///
/// An id is 8 timestamp digits (milliseconds, base 64, most significant first) then 12
/// random digits, over the alphabet
/// `-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz` (ASCII order, so ids
/// sort as strings by time). When the millisecond equals the previous id's, the previous
/// random digits are incremented by one instead, so ids from one generator are strictly
/// increasing within a millisecond.
///
/// A value type: keep one per client (or per server namespace) in the state of the actor
/// that creates ids.
public struct PushIDGenerator: Sendable {
    /// The 64 digits, in ASCII order.
    public static let alphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
    private static let digits: [UInt8] = Array(alphabet.utf8)

    /// The time source: milliseconds since the Unix epoch. Clients pass their
    /// server-adjusted clock (local time + `.info/serverTimeOffset`).
    private let clock: @Sendable () -> Int64
    private var random: any RandomNumberGenerator & Sendable
    /// The timestamp of the previous id, `nil` before the first.
    private var lastTimestamp: Int64?
    /// The random digits (0…63) of the previous id.
    private var lastRandom: [UInt8] = []

    /// Creates a generator reading time from `clock` and randomness from `random`.
    public init(
        clock: @escaping @Sendable () -> Int64,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.clock = clock
        self.random = random
    }

    /// The next id, stamped with the clock's current time.
    public mutating func next() -> String {
        next(timestamp: clock())
    }

    /// The next id, stamped with `timestamp` (milliseconds since the Unix epoch). Times
    /// outside 0 ..< 2⁴⁸ are clamped to that range.
    public mutating func next(timestamp: Int64) -> String {
        let time = min(max(timestamp, 0), (1 << 48) - 1)
        if time == lastTimestamp {
            incrementRandom()
        } else {
            lastTimestamp = time
            lastRandom = freshRandom()
        }
        var id: [UInt8] = []
        id.reserveCapacity(20)
        for shift in stride(from: 42, through: 0, by: -6) {
            id.append(Self.digits[Int(time >> Int64(shift) & 63)])
        }
        for digit in lastRandom {
            id.append(Self.digits[Int(digit)])
        }
        return String(decoding: id, as: UTF8.self)
    }

    /// The timestamp encoded in the first 8 characters of a push id, or `nil` when `id` does
    /// not start with 8 alphabet characters.
    public static func timestamp(of id: String) -> Int64? {
        var value: Int64 = 0
        var count = 0
        for byte in id.utf8.prefix(8) {
            guard let digit = digits.firstIndex(of: byte) else { return nil }
            value = value << 6 | Int64(digit)
            count += 1
        }
        return count == 8 ? value : nil
    }

    /// Twelve independent random digits: six bits at a time from the random source.
    private mutating func freshRandom() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        var bits = random.next()
        for index in 0..<12 {
            if index == 10 { bits = random.next() }
            out.append(UInt8(truncatingIfNeeded: bits & 63))
            bits >>= 6
        }
        return out
    }

    /// Adds one to the previous random digits as a base-64 number: trailing 63s roll over to
    /// 0 and carry left. (Twelve 63s would wrap to all zeros; at one id per increment that
    /// takes 2⁷² ids in one millisecond.)
    private mutating func incrementRandom() {
        var index = lastRandom.count - 1
        while index >= 0 && lastRandom[index] == 63 {
            lastRandom[index] = 0
            index -= 1
        }
        if index >= 0 { lastRandom[index] += 1 }
    }
}
