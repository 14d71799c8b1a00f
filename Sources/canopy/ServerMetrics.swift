import CanopyWebSocket
import Foundation
import Synchronization

/// The counters `canopy serve` keeps for `/metrics`: connections, writes, bytes in and out,
/// HTTP requests and errors. Thread-safe; updated by the listener (``webSockets``), the REST
/// adapter and the stores.
final class ServerMetrics: Sendable {
    /// A copy of the counters at one moment.
    struct Counters: Sendable {
        /// Server-Sent Events streams open now.
        var openEventStreams = 0
        /// Event streams ever opened.
        var eventStreamsOpened = 0
        /// Writes committed to a store (sets, updates, onDisconnect operations, REST writes).
        var writes = 0
        /// HTTP request body bytes received.
        var httpBytesReceived = 0
        /// HTTP response body and stream event bytes sent.
        var httpBytesSent = 0
        /// HTTP requests answered.
        var httpRequests = 0
        /// HTTP requests answered with a 4xx or 5xx status.
        var httpErrors = 0
    }

    /// How many seconds the writes-per-second rate averages over.
    static let rateWindow = 10

    private struct State {
        var counters = Counters()
        /// Writes per second for the last ``rateWindow`` seconds, indexed by second modulo the
        /// window, with the second each slot holds.
        var recentWrites = [(second: Int64, count: Int)](repeating: (-1, 0), count: ServerMetrics.rateWindow)
    }

    /// The websocket connections and message bytes, counted by the listener.
    let webSockets = WebSocketTrafficMeter()
    private let state = Mutex(State())
    private let started: ContinuousClock.Instant
    private let clock: @Sendable () -> Int64

    /// Creates zeroed counters; `clock` is the time in milliseconds used for the write rate.
    init(clock: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }) {
        self.clock = clock
        self.started = .now
    }

    /// The counters now.
    var counters: Counters {
        state.withLock { $0.counters }
    }

    /// Seconds since the counters were created.
    var uptimeSeconds: Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Applies `change` to the counters.
    func update(_ change: (inout Counters) -> Void) {
        state.withLock { change(&$0.counters) }
    }

    /// Counts a committed write.
    func recordWrite() {
        let second = clock() / 1000
        state.withLock { state in
            state.counters.writes += 1
            let slot = Int(second % Int64(Self.rateWindow))
            if state.recentWrites[slot].second != second { state.recentWrites[slot] = (second, 0) }
            state.recentWrites[slot].count += 1
        }
    }

    /// Writes per second averaged over the last ``rateWindow`` whole seconds (fewer while the
    /// server has been up for less), the current second excluded.
    var writesPerSecond: Double {
        let now = clock() / 1000
        let window = max(1, min(Self.rateWindow - 1, Int(uptimeSeconds)))
        let total = state.withLock { state in
            state.recentWrites.reduce(0) { sum, slot in
                slot.second < now && slot.second >= now - Int64(window) ? sum + slot.count : sum
            }
        }
        return Double(total) / Double(window)
    }
}
