import CanopyWire
import Foundation
import Synchronization
import Testing

@testable import CanopyWebSocket

/// Answers with a description of the request it got, so tests can check what the listener
/// parsed; `/big.json` answers 300 KB; `/stream.json` streams three SSE events.
struct DescribingHandler: HTTPHandler {
    let terminations: AsyncStream<String>.Continuation?
    let feeds: AsyncStream<AsyncStream<[UInt8]>.Continuation>.Continuation?

    init(
        terminations: AsyncStream<String>.Continuation? = nil,
        feeds: AsyncStream<AsyncStream<[UInt8]>.Continuation>.Continuation? = nil
    ) {
        self.terminations = terminations
        self.feeds = feeds
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/big.json":
            return .complete(
                status: 200, headers: [HTTPHeader("Content-Type", "application/octet-stream")],
                body: (0..<300_000).map { UInt8($0 % 251) })
        case "/stream.json":
            let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
            for index in 0..<3 {
                continuation.yield(Array("event: put\ndata: {\"path\":\"/\",\"data\":\(index)}\n\n".utf8))
            }
            continuation.finish()
            return .stream(status: 200, headers: [HTTPHeader("Content-Type", "text/event-stream")], body: stream)
        case "/endless.json":
            let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
            let terminations = terminations
            continuation.onTermination = { _ in
                terminations?.yield("endless stream terminated")
            }
            feeds?.yield(continuation)
            continuation.yield(Array("event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n".utf8))
            return .stream(status: 200, headers: [HTTPHeader("Content-Type", "text/event-stream")], body: stream)
        default:
            var lines = ["method=\(request.method)", "path=\(request.path)"]
            lines += request.queryItems.map { "query:\($0.name)=\($0.value)" }
            for name in ["authorization", "x-firebase-etag", "if-match", "content-type"] {
                if let value = request.header(name) { lines.append("header:\(name)=\(value)") }
            }
            lines.append("body=\(request.body.count):\(String(decoding: request.body.prefix(64), as: UTF8.self))")
            return .complete(
                status: request.method == "PUT" ? 201 : 200,
                headers: [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("ETag", "abc")],
                body: Array(lines.joined(separator: "\n").utf8))
        }
    }
}

/// Answers every request with the number of `POST` requests it has seen.
final class PostCountingHandler: HTTPHandler {
    private let posts = Mutex(0)

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let count = posts.withLock { posts in
            if request.method == "POST" { posts += 1 }
            return posts
        }
        return .complete(status: 200, headers: [], body: Array("\(count)".utf8))
    }
}

@Suite struct HTTPHostTests {
    @Test func getWithQueryAndHeadersReachesTheHandler() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let response = try await RawHTTPClient.send(
            port: server.listener.port, method: "GET",
            target: "/users/ada.json?print=pretty&orderBy=%22%24key%22&startAt=%22a%26b%22&ns=demo",
            headers: [("Authorization", "Bearer owner"), ("X-Firebase-ETag", "true")])
        #expect(response.status == 200)
        #expect(response.headers["etag"] == "abc")
        #expect(response.headers["content-type"] == "text/plain")
        let lines = response.bodyText.split(separator: "\n").map(String.init)
        #expect(lines.contains("method=GET"))
        #expect(lines.contains("path=/users/ada.json"))
        #expect(lines.contains("query:print=pretty"))
        #expect(lines.contains(#"query:orderBy="$key""#))
        #expect(lines.contains(#"query:startAt="a&b""#))
        #expect(lines.contains("query:ns=demo"))
        #expect(lines.contains("header:authorization=Bearer owner"))
        #expect(lines.contains("header:x-firebase-etag=true"))
        #expect(lines.contains("body=0:"))
    }

    @Test func putBodyArrivesWholeAndIsAnswered() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let small = try await RawHTTPClient.send(
            port: server.listener.port, method: "PUT", target: "/a/b.json",
            headers: [("Content-Type", "application/json"), ("if-match", "null_etag")], body: Array(#"{"x":1}"#.utf8))
        #expect(small.status == 201)
        let lines = small.bodyText.split(separator: "\n").map(String.init)
        #expect(lines.contains("method=PUT"))
        #expect(lines.contains("path=/a/b.json"))
        #expect(lines.contains(#"body=7:{"x":1}"#))
        #expect(lines.contains("header:if-match=null_etag"))
        #expect(lines.contains("header:content-type=application/json"))

        let big = Array(repeating: UInt8(ascii: "z"), count: 200_000)
        let large = try await RawHTTPClient.send(
            port: server.listener.port, method: "PUT", target: "/big/put.json", body: big)
        #expect(large.status == 201)
        #expect(large.bodyText.contains("body=200000:zzzz"))
    }

    @Test func largeResponseBodyArrivesIntact() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let response = try await RawHTTPClient.send(port: server.listener.port, method: "GET", target: "/big.json")
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "300000")
        #expect(response.body == (0..<300_000).map { UInt8($0 % 251) })
    }

    @Test func defaultHandlerAnswersNotFound() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let response = try await RawHTTPClient.send(port: server.listener.port, method: "GET", target: "/x.json")
        #expect(response.status == 404)
        #expect(response.bodyText == #"{"error":"Not Found"}"#)
    }

    @Test func serverSentEventsStreamDeliversEventsThenCloses() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let response = try await RawHTTPClient.send(
            port: server.listener.port, method: "GET", target: "/stream.json",
            headers: [("Accept", "text/event-stream")])
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/event-stream")
        #expect(response.headers["content-length"] == nil)
        let events = response.bodyText.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(
            events == (0..<3).map { "event: put\ndata: {\"path\":\"/\",\"data\":\($0)}" })
    }

    @Test func disconnectingClientTerminatesTheStream() async throws {
        let (terminations, continuation) = AsyncStream.makeStream(of: String.self)
        let inbox = Inbox(terminations)
        let (feeds, feedContinuation) = AsyncStream.makeStream(of: AsyncStream<[UInt8]>.Continuation.self)
        let feedInbox = Inbox(feeds)
        let server = try await LoopbackServer.start(
            httpHandler: DescribingHandler(terminations: continuation, feeds: feedContinuation))
        defer { Task { await server.listener.stop() } }
        let request = "GET /endless.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
        let received = try await RawHTTPClient.readUntil(
            port: server.listener.port, request: Array(request.utf8), marker: "\"data\":null}\n\n")
        #expect(String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        // The server notices the disconnect when it next writes (like a keep-alive event).
        let feed = try await feedInbox.next("stream feed")
        feed.yield(Array("event: keep-alive\ndata: null\n\n".utf8))
        feed.yield(Array("event: keep-alive\ndata: null\n\n".utf8))
        #expect(try await inbox.next("stream termination after disconnect") == "endless stream terminated")
    }

    @Test func websocketAndHTTPShareThePort() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let (client, clientEvents, connection, _) = try await server.connect()
        let response = try await RawHTTPClient.send(port: server.listener.port, method: "DELETE", target: "/a.json")
        #expect(response.bodyText.contains("method=DELETE"))
        connection.send("after http")
        #expect(try await clientEvents.next("frame after HTTP") == .frame("after http"))
        await client.close()
    }

    @Test func oversizedBodyIsRefusedWith413() async throws {
        let listener = try await WebSocketListener.start(
            configuration: .init(maximumRequestBodyBytes: 1000, logger: .silent), httpHandler: DescribingHandler())
        defer { Task { await listener.stop() } }
        let response = try await RawHTTPClient.send(
            port: listener.port, method: "PUT", target: "/a.json", body: Array(repeating: 120, count: 5000))
        #expect(response.status == 413)
        #expect(response.bodyText.contains("error"))
        let fits = try await RawHTTPClient.send(
            port: listener.port, method: "PUT", target: "/a.json", body: Array(repeating: 120, count: 1000))
        #expect(fits.status == 201)
    }

    @Test func emptyPostReachesTheHandlerOnce() async throws {
        let handler = PostCountingHandler()
        let server = try await LoopbackServer.start(httpHandler: handler)
        defer { Task { await server.listener.stop() } }
        let post = try await RawHTTPClient.send(
            port: server.listener.port, method: "POST", target: "/a.json")
        #expect(post.bodyText == "1")
        let after = try await RawHTTPClient.send(port: server.listener.port, method: "GET", target: "/count")
        #expect(after.bodyText == "1")
    }

    @Test func chunkedBodyIsRefusedWith411() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let request =
            "PUT /a.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n"
        let raw = try await RawHTTPClient.exchange(port: server.listener.port, request: Array(request.utf8))
        #expect(try RawHTTPClient.parse(raw).status == 411)
    }

    @Test func headAnswersHeadersOnlyAndThePipelinedRequestBehindItIsAnswered() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        let outcome = try await PipeliningClient.run(
            port: server.listener.port,
            requests: [
                "HEAD /one.json HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /two.json?a=b+c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            ])
        let head = try #require(outcome.responses.first)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(Int(head.headers["content-length"] ?? "") ?? 0 > 0)
        let get = try #require(outcome.responses.last)
        #expect(outcome.responses.count == 2)
        #expect(get.bodyText.contains("path=/two.json"))
        #expect(get.bodyText.contains("query:a=b c"))
    }

    @Test func manyOpenStreamsDoNotStarveOtherRequests() async throws {
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler())
        defer { Task { await server.listener.stop() } }
        var sockets: [Int32] = []
        defer { sockets.forEach(RawHTTPClient.closeSocket) }
        let request = Array("GET /endless.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".utf8)
        for index in 0..<200 {
            let (socket, _) = try await RawHTTPClient.openUntil(
                port: server.listener.port, request: request, marker: "\"data\":null}\n\n")
            sockets.append(socket)
            #expect(socket >= 0, "stream \(index)")
        }
        let response = try await RawHTTPClient.send(port: server.listener.port, method: "GET", target: "/x.json")
        #expect(response.status == 200)
        let (client, clientEvents, connection, _) = try await server.connect()
        connection.send("still serving")
        #expect(try await clientEvents.next("frame with 200 open streams") == .frame("still serving"))
        await client.close()
    }
}
