import Dispatch
import Foundation

/// SIGINT and SIGTERM delivered as an async sequence instead of killing the process, so that
/// `canopy serve` can shut down in order. Create it before serving; keep it while waiting.
final class TerminationSignals: @unchecked Sendable {
    /// The signals as they arrive (`SIGINT`, `SIGTERM`).
    let signals: AsyncStream<Int32>
    // Written once in init, then only kept alive.
    private var sources: [any DispatchSourceSignal] = []

    /// Stops SIGINT and SIGTERM from ending the process and starts reporting them.
    init() {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.signals = signals
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The name of a signal number, such as `SIGTERM`.
    static func name(_ number: Int32) -> String {
        number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
    }
}
