import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire
import Foundation
import Synchronization
import Testing

@testable import CanopyWebSocket

/// Log lines a listener emitted, for tests that check what was logged.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger that records every line at warning level and above.
    var logger: WebSocketLogger {
        WebSocketLogger(minimumLevel: .warning) { [self] _, line in record(line) }
    }

    private func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// The recorded lines containing `text`.
    func lines(containing text: String) -> [String] {
        lines.withLock { $0.filter { $0.contains(text) } }
    }
}

/// Forwards a listener's connections to a server while handing the test each websocket
/// connection too (to read its queued-byte figure).
private struct RecordingListener: ServerListener {
    let connections: AsyncStream<any ServerConnection>
    let recorded: Inbox<WebSocketServerConnection>
    private let listener: WebSocketListener

    init(_ listener: WebSocketListener) {
        self.listener = listener
        let (recordedStream, recordedContinuation) = AsyncStream.makeStream(of: WebSocketServerConnection.self)
        recorded = Inbox(recordedStream)
        connections = AsyncStream { continuation in
            Task {
                for await connection in listener.connections {
                    if let websocket = connection as? WebSocketServerConnection {
                        recordedContinuation.yield(websocket)
                    }
                    continuation.yield(connection)
                }
                recordedContinuation.finish()
                continuation.finish()
            }
        }
    }

    func close() async {
        await listener.close()
    }
}

/// A CanopyServer on a real listener, and protocol-speaking clients of one namespace.
private struct ServedListener {
    let listener: WebSocketListener
    let server: CanopyServer
    let recording: RecordingListener
    let serving: Task<Void, Never>
    let namespace: String

    init(configuration: WebSocketListenerConfiguration, namespace: String) async throws {
        listener = try await WebSocketListener.start(configuration: configuration)
        server = CanopyServer { _ in MemoryTreeStore() }
        recording = RecordingListener(listener)
        let server = server
        let recording = recording
        serving = Task { await server.serve(recording) }
        self.namespace = namespace
    }

    /// A websocket client transport past the hello.
    func client() async throws -> (WebSocketClientTransport, Inbox<ClientTransportEvent>) {
        let client = WebSocketClientTransport(configuration: .init(logger: .silent))
        let events = Inbox(client.events)
        await client.connect(to: ConnectionTarget(host: "127.0.0.1:\(listener.port)", namespace: namespace))
        #expect(try await events.next("opened") == .opened)
        guard case .frame(let hello) = try await events.next("hello"), hello.contains(#""t":"h""#) else {
            throw WaitFailure(description: "no hello")
        }
        return (client, events)
    }

    func stop() async {
        await server.shutdown()
        await listener.stop()
        serving.cancel()
    }
}

/// The action and path (without a leading `/`) of a data message, if `frame` is one.
private func dataMessage(_ frame: String) -> (action: String, path: String, body: [String: Any])? {
    guard let message = try? JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any],
        let data = message["d"] as? [String: Any], let action = data["a"] as? String,
        let body = data["b"] as? [String: Any], let path = body["p"] as? String
    else { return nil }
    return (action, path.hasPrefix("/") ? String(path.dropFirst()) : path, body)
}

/// Waits for the first frame satisfying `predicate`, skipping others.
private func frame(
    from events: Inbox<ClientTransportEvent>, _ what: String, timeout: Duration = .seconds(15),
    where predicate: (String) -> Bool
) async throws -> String {
    while true {
        guard case .frame(let frame) = try await events.next(what, timeout: timeout) else {
            throw WaitFailure(description: "the connection closed while waiting for \(what)")
        }
        if predicate(frame) { return frame }
    }
}

/// Clients that stop reading, or vanish, against a CanopyServer over real sockets: the server
/// lets go of them (running their onDisconnect operations) while everyone else is served.
@Suite struct SlowAndDeadClientTests {
    @Test func clientThatStopsReadingIsClosedWhileOthersReceiveEveryEvent() async throws {
        let limit = 256 << 10
        let log = LogRecorder()
        let served = try await ServedListener(
            configuration: .init(maximumQueuedBytes: limit, logger: log.logger), namespace: "slow")
        defer { Task { await served.stop() } }

        // The slow client listens on /data, leaves an onDisconnect write, then stops reading
        // with a small receive buffer, so the server's writes back up quickly.
        let slow = try await RawHTTPClient.openSilentWebSocket(
            port: served.listener.port, namespace: "slow", receiveBufferBytes: 4096)
        defer { RawHTTPClient.closeSocket(slow) }
        _ = try await RawHTTPClient.read(slow, untilContains: #""t":"h""#)
        let slowConnection = try await served.recording.recorded.next("the slow client's connection")
        try await RawHTTPClient.write(
            slow,
            RawHTTPClient.clientTextFrame(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/status/slow","d":"gone"}}}"#)
                + RawHTTPClient.clientTextFrame(#"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/data","h":""}}}"#))
        _ = try await RawHTTPClient.read(slow, untilContains: #""r":2"#)

        let (watcher, watcherEvents) = try await served.client()
        await watcher.send(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/data","h":""}}}"#)
        await watcher.send(#"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/status","h":""}}}"#)
        _ = try await frame(from: watcherEvents, "the watcher's listens") { $0.contains(#""r":2"#) }

        // 200 writes of 12 kB: about 2.4 MB for each listener, ten times the slow client's limit.
        // Each write waits until the watcher has its event, so the watcher never falls behind
        // by more than one event while the slow client's queue grows.
        let (writer, writerEvents) = try await served.client()
        let writes = 200
        let value = String(repeating: "x", count: 12_000)
        var seen: [String] = []
        var statusPushes: [String] = []
        var largestQueue = 0
        for index in 1...writes {
            await writer.send(#"{"t":"d","d":{"r":\#(index),"a":"p","b":{"p":"/data/i\#(index)","d":"\#(value)"}}}"#)
            while seen.count < index {
                let push = try await frame(from: watcherEvents, "push \(index)") { dataMessage($0)?.action == "d" }
                guard let message = dataMessage(push) else { continue }
                if message.path.hasPrefix("status") {
                    statusPushes.append(push)
                } else if message.path.hasPrefix("data/") {
                    #expect(message.body["d"] as? String == value)
                    seen.append(message.path)
                }
            }
            largestQueue = max(largestQueue, slowConnection.queuedBytes)
        }
        #expect(seen == (1...writes).map { "data/i\($0)" })
        #expect(largestQueue <= limit, "the slow client's queue reached \(largestQueue) bytes")
        for index in 1...writes {
            let ack = try await frame(from: writerEvents, "acknowledgement \(index)") { $0.contains(#""s":"ok""#) }
            #expect(ack.contains(#""r":\#(index),"#))
        }

        // The slow client was closed: what reached its socket ends, and its onDisconnect write ran.
        _ = try await withDeadline("the slow client's socket ends") { try await RawHTTPClient.readToEnd(of: slow) }
        if !statusPushes.contains(where: { $0.contains("gone") }) {
            _ = try await frame(from: watcherEvents, "the slow client's onDisconnect write") {
                dataMessage($0)?.path.hasPrefix("status") == true && $0.contains("gone")
            }
        }
        #expect(slowConnection.queuedBytes == 0)
        #expect(log.lines(containing: "client too slow").count == 1, "\(log.lines(containing: "slow"))")
        let stored = try await served.server.namespace(named: "slow").value(at: Path("/data"))
        #expect(stored.childCount == writes)
        await watcher.close()
        await writer.close()
    }

    @Test func deadPeerIsDroppedAndItsOnDisconnectWriteLands() async throws {
        let served = try await ServedListener(
            configuration: .init(keepalive: WebSocketKeepalive(pingInterval: 1, hangupInterval: 3), logger: .silent),
            namespace: "dead")
        defer { Task { await served.stop() } }
        let (watcher, watcherEvents) = try await served.client()
        await watcher.send(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/status","h":""}}}"#)
        _ = try await frame(from: watcherEvents, "the watcher's listen") { $0.contains(#""r":1"#) }

        // Completes the handshake, leaves an onDisconnect write, then never reads or answers
        // a ping again.
        let peer = try await RawHTTPClient.openSilentWebSocket(port: served.listener.port, namespace: "dead")
        defer { RawHTTPClient.closeSocket(peer) }
        try await RawHTTPClient.write(
            peer, RawHTTPClient.clientTextFrame(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/status/peer","d":"gone"}}}"#))
        _ = try await RawHTTPClient.read(peer, untilContains: #""r":1"#)

        let status = try await frame(from: watcherEvents, "the dead peer's onDisconnect write", timeout: .seconds(30)) {
            dataMessage($0)?.path.hasPrefix("status") == true && $0.contains("gone")
        }
        #expect(status.contains("gone"))
        let stored = try await served.server.namespace(named: "dead").value(at: Path("/status/peer"))
        #expect(stored.exportJSON() == .string("gone"))
        // The server closed the socket (after its pings, whatever it wrote ends).
        _ = try await withDeadline("the dead peer's socket ends") { try await RawHTTPClient.readToEnd(of: peer) }
        await watcher.close()
    }
}
