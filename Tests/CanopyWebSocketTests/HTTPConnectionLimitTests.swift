import Foundation
import Synchronization
import Testing

@testable import CanopyWebSocket

/// Streams `chunkCount` chunks of `chunkBytes` as fast as they are taken, then stays open
/// until the listener ends the response; reports each stream's end.
private struct FloodingStreamHandler: HTTPHandler {
    let chunkBytes: Int
    let chunkCount: Int
    let ended: AsyncStream<Void>.Continuation

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: chunkBytes)
        let ended = ended
        let body = AsyncStream<[UInt8]> { continuation in
            for _ in 0..<chunkCount { continuation.yield(chunk) }
            continuation.onTermination = { _ in ended.yield() }
        }
        return .stream(status: 200, headers: [HTTPHeader("content-type", "text/event-stream")], body: body)
    }
}

/// Answers every request with a stream the test feeds: each chunk ``broadcast(_:)`` gets goes
/// to every open stream. Reports streams opening (by request path) and ending.
private final class BroadcastStreamHandler: HTTPHandler {
    private let feeds = Mutex<[AsyncStream<[UInt8]>.Continuation]>([])
    let opened: Inbox<String>
    let ended: Inbox<String>
    private let openedContinuation: AsyncStream<String>.Continuation
    private let endedContinuation: AsyncStream<String>.Continuation

    init() {
        let (opened, openedContinuation) = AsyncStream.makeStream(of: String.self)
        let (ended, endedContinuation) = AsyncStream.makeStream(of: String.self)
        self.opened = Inbox(opened)
        self.ended = Inbox(ended)
        self.openedContinuation = openedContinuation
        self.endedContinuation = endedContinuation
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let (body, feed) = AsyncStream.makeStream(of: [UInt8].self)
        let path = request.path
        feed.onTermination = { [endedContinuation] _ in endedContinuation.yield(path) }
        feeds.withLock { $0.append(feed) }
        openedContinuation.yield(path)
        return .stream(status: 200, headers: [HTTPHeader("content-type", "text/event-stream")], body: body)
    }

    func broadcast(_ chunk: [UInt8]) {
        for feed in feeds.withLock({ $0 }) { feed.yield(chunk) }
    }
}

/// HTTP connections the listener must let go of: a stream to a client that stopped reading,
/// a response that cannot make progress, and an idle keep-alive connection.
@Suite struct HTTPConnectionLimitTests {
    private static func streamRequest(_ path: String) -> [UInt8] {
        Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8)
    }

    /// The number of `x` bytes in `bytes` after the response head (which ends the bytes
    /// `openUntil` answered with a `\r\n\r\n` marker).
    private static func bodyBytes(_ bytes: [UInt8]) -> Int {
        let start = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound ?? bytes.endIndex
        return bytes[start...].count { $0 == UInt8(ascii: "x") }
    }

    /// Reads from `socket` until `total` body bytes arrived, counting from `received`.
    private static func readBody(_ socket: Int32, until total: Int, received: inout Int) async throws {
        while received < total {
            let bytes = try await RawHTTPClient.read(socket, atLeast: total - received)
            received += bytes.count { $0 == UInt8(ascii: "x") }
        }
    }

    @Test func streamToAClientThatStopsReadingEndsPastTheByteLimit() async throws {
        let log = LogRecorder()
        let streams = BroadcastStreamHandler()
        let listener = try await WebSocketListener.start(
            configuration: .init(maximumQueuedBytes: 256 << 10, logger: log.logger), httpHandler: streams)
        defer { Task { await listener.stop() } }
        let (slow, _) = try await RawHTTPClient.openUntil(
            port: listener.port, request: Self.streamRequest("/slow"), marker: "\r\n\r\n", receiveBufferBytes: 4096)
        defer { RawHTTPClient.closeSocket(slow) }
        #expect(try await streams.opened.next("the slow stream") == "/slow")
        let (reader, head) = try await RawHTTPClient.openUntil(
            port: listener.port, request: Self.streamRequest("/reader"), marker: "\r\n\r\n")
        defer { RawHTTPClient.closeSocket(reader) }
        #expect(try await streams.opened.next("the reading stream") == "/reader")
        var received = Self.bodyBytes(head)

        // 256 events of 16 kB (4 MB); the reader reads each one before the next is sent.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 10)
        for index in 1...256 {
            streams.broadcast(chunk)
            try await Self.readBody(reader, until: index * chunk.count, received: &received)
        }
        #expect(try await streams.ended.next("the slow stream to end") == "/slow")
        #expect(log.lines(containing: "client too slow").count == 1, "\(log.lines(containing: "GET"))")
        // What reached the slow socket is readable, then the response ends; 4 MB were never sent.
        let rest = try await withDeadline("the slow response ends") { try await RawHTTPClient.readToEnd(of: slow) }
        #expect(rest.count < 2 << 20)
        // The reader is still served.
        streams.broadcast(chunk)
        try await Self.readBody(reader, until: 257 * chunk.count, received: &received)
    }

    @Test func responseThatMakesNoProgressIsDropped() async throws {
        let log = LogRecorder()
        let (ends, ended) = AsyncStream.makeStream(of: Void.self)
        let endings = Inbox(ends)
        // 16 MB fit the byte limit but not the sockets' buffers: the writes stall.
        let listener = try await WebSocketListener.start(
            configuration: .init(maximumQueuedBytes: 64 << 20, stalledWriteTimeout: .seconds(1), logger: log.logger),
            httpHandler: FloodingStreamHandler(chunkBytes: 64 << 10, chunkCount: 256, ended: ended))
        defer { Task { await listener.stop() } }
        let (socket, _) = try await RawHTTPClient.openUntil(
            port: listener.port, request: Self.streamRequest("/events"), marker: "\r\n\r\n", receiveBufferBytes: 4096)
        defer { RawHTTPClient.closeSocket(socket) }

        try await endings.next("the stalled stream to end", timeout: .seconds(30))
        #expect(log.lines(containing: "no write went through").count == 1, "\(log.lines(containing: "GET"))")
        _ = try await withDeadline("the response ends") { try await RawHTTPClient.readToEnd(of: socket) }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        let listener = try await WebSocketListener.start(
            configuration: .init(httpKeepAliveTimeout: .seconds(1), logger: .silent))
        defer { Task { await listener.stop() } }
        // HTTP/1.1 keeps the connection by default; after the answer the client sends nothing.
        let (socket, answer) = try await RawHTTPClient.openUntil(
            port: listener.port, request: Array("GET /a.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8),
            marker: "Not Found\"}")
        defer { RawHTTPClient.closeSocket(socket) }
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 404"))
        let rest = try await withDeadline("the server closes the idle connection") {
            try await RawHTTPClient.readToEnd(of: socket)
        }
        #expect(rest.isEmpty)
    }
}
