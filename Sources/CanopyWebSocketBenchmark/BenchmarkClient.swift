import CanopyWebSocket
import CanopyWire

/// One websocket client connection used by the benchmark: a transport and the iterator over
/// its events, consumed by one task at a time.
final class BenchmarkClient: @unchecked Sendable {
    /// Why a client could not go on.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let transport: WebSocketClientTransport
    private var iterator: AsyncStream<ClientTransportEvent>.AsyncIterator

    private init(transport: WebSocketClientTransport) {
        self.transport = transport
        self.iterator = transport.events.makeAsyncIterator()
    }

    /// Connects to `port` on 127.0.0.1 (database endpoint of namespace `bench`) and waits
    /// until the websocket is open.
    static func connect(port: Int) async throws -> BenchmarkClient {
        let transport = WebSocketClientTransport(configuration: .init(logger: .silent))
        let client = BenchmarkClient(transport: transport)
        await transport.connect(to: ConnectionTarget(host: "127.0.0.1:\(port)", namespace: "bench"))
        guard case .opened = try await client.nextEvent() else { throw Failure(description: "connection not opened") }
        return client
    }

    private func nextEvent() async throws -> ClientTransportEvent {
        guard let event = await iterator.next() else { throw Failure(description: "event stream ended") }
        return event
    }

    /// The next text frame; throws when the connection closes first.
    func nextFrame() async throws -> String {
        switch try await nextEvent() {
        case .frame(let frame): return frame
        case .closed(let reason): throw Failure(description: "connection closed: \(reason)")
        case .opened: return try await nextFrame()
        }
    }

    /// Reads frames until one contains `marker`, and returns it.
    func nextFrame(containing marker: String) async throws -> String {
        while true {
            let frame = try await nextFrame()
            if frame.contains(marker) { return frame }
        }
    }

    /// Sends a frame.
    func send(_ frame: String) async { await transport.send(frame) }

    /// Closes the connection.
    func close() async { await transport.close() }
}
