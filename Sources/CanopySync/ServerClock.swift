import Synchronization

/// The server's clock as the client estimates it: the local wall clock plus the offset
/// learnt from the last handshake (client-design.md §10.3). Readable from any thread.
public final class ServerClock: Sendable {
    private let localClock: @Sendable () -> Int64
    private let offset = Mutex<Int64>(0)

    /// Creates a clock over `localClock` (milliseconds since the Unix epoch), offset 0.
    public init(localClock: @escaping @Sendable () -> Int64) {
        self.localClock = localClock
    }

    /// The local wall clock, in milliseconds since the Unix epoch.
    public var localTime: Int64 { localClock() }

    /// The latest `serverTimeOffset` in milliseconds (0 until a handshake).
    public var serverTimeOffset: Int64 { offset.withLock { $0 } }

    /// The estimated server time, in milliseconds since the Unix epoch.
    public func now() -> Int64 { localClock() &+ serverTimeOffset }

    /// Records a handshake's server time; returns the new offset.
    @discardableResult
    func synchronize(serverTime: Int64) -> Int64 {
        let delta = serverTime &- localClock()
        offset.withLock { $0 = delta }
        return delta
    }
}
