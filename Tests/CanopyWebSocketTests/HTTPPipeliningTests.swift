import Foundation
import Synchronization
import Testing

@testable import CanopyWebSocket

#if canImport(Glibc)
    import Glibc
#endif

/// Answers `METHOD path body=…` and records every request it runs, in order. Requests to
/// paths starting with `/slow` announce themselves on ``entered`` and wait for ``release()``.
final class RecordingHandler: HTTPHandler {
    let entered: AsyncStream<String>
    private let enteredContinuation: AsyncStream<String>.Continuation
    private let runs = Mutex<[String]>([])
    private let gate = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init() {
        (entered, enteredContinuation) = AsyncStream.makeStream(of: String.self)
    }

    /// Every request run so far as `METHOD path body`, in order.
    var requests: [String] { runs.withLock { $0 } }

    /// Lets every waiting and future `/slow` request answer.
    func release() {
        let waiters = gate.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        runs.withLock { $0.append("\(request.method) \(request.path) \(body)") }
        if request.path.hasPrefix("/slow") {
            enteredContinuation.yield(request.path)
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let open = gate.withLock { state in
                    if !state.open { state.waiters.append(waiter) }
                    return state.open
                }
                if open { waiter.resume() }
            }
        }
        if request.path.hasPrefix("/empty") { return .complete(status: 204, headers: [], body: []) }
        return .text(200, "\(request.method) \(request.path) body=\(body)")
    }
}

/// HTTP/1.1 pipelining: a client may write its next requests before the previous answers
/// arrive. Every request must be answered in order and run exactly once; the server may
/// answer with `Connection: close` and leave the rest for the client to send again.
@Suite struct HTTPPipeliningTests {
    private static func put(_ path: String, _ body: String, close: Bool = false) -> String {
        "PUT \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n\(body)"
    }

    private static func post(_ path: String, _ body: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            + body
    }

    private static func get(_ path: String, close: Bool = false) -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    private func exchange(
        _ requests: [String], writeSizes: [Int] = [], handler: RecordingHandler = RecordingHandler()
    ) async throws -> (PipeliningClient.Outcome, [String]) {
        let server = try await LoopbackServer.start(httpHandler: handler)
        defer { Task { await server.listener.stop() } }
        let outcome = try await PipeliningClient.run(
            port: server.listener.port, requests: requests, writeSizes: writeSizes)
        return (outcome, handler.requests)
    }

    @Test func bodyRequestFollowedByAPipelinedGetIsAnsweredInOrder() async throws {
        let (outcome, runs) = try await exchange([Self.put("/a.json", "abc"), Self.get("/b.json", close: true)])
        #expect(outcome.responses.map(\.status) == [200, 200])
        #expect(outcome.responses.map(\.bodyText) == ["PUT /a.json body=abc", "GET /b.json body="])
        #expect(runs == ["PUT /a.json abc", "GET /b.json "])
        // The request with bytes waiting behind it is answered with `Connection: close`; the
        // client sends the unanswered request again on a new connection.
        #expect(outcome.responses.first?.headers["connection"] == "close")
        #expect(outcome.responsesPerConnection == [1, 1])
    }

    @Test func getFollowedByAPipelinedBodyRequestIsAnsweredInOrder() async throws {
        let (outcome, runs) = try await exchange([Self.get("/a.json"), Self.put("/b.json", "xyz", close: true)])
        #expect(outcome.responses.map(\.bodyText) == ["GET /a.json body=", "PUT /b.json body=xyz"])
        #expect(runs == ["GET /a.json ", "PUT /b.json xyz"])
    }

    @Test func pipelinedPostsRunOnceEachInOrder() async throws {
        let bodies = [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#]
        let (outcome, runs) = try await exchange(bodies.map { Self.post("/list.json", $0) })
        #expect(outcome.responses.map(\.status) == [200, 200, 200])
        #expect(outcome.responses.map(\.bodyText) == bodies.map { "POST /list.json body=\($0)" })
        #expect(runs == bodies.map { "POST /list.json \($0)" })
    }

    @Test func bodySplitAcrossWritesThenAPipelinedRequest() async throws {
        let put = Self.put("/split.json", "0123456789")
        let head = put.utf8.count - 10
        // Head and 3 body bytes | 4 body bytes | the last 3 body bytes with the next request.
        let (outcome, runs) = try await exchange(
            [put, Self.get("/after.json", close: true)], writeSizes: [head + 3, 4])
        #expect(outcome.responses.map(\.bodyText) == ["PUT /split.json body=0123456789", "GET /after.json body="])
        #expect(runs == ["PUT /split.json 0123456789", "GET /after.json "])
    }

    @Test func bodyRequestsFollowedByAnEmptyAnswerAndMore() async throws {
        let (outcome, runs) = try await exchange([
            Self.put("/empty.json", "1"), Self.get("/empty-too.json"), Self.post("/three.json", "3"),
            Self.get("/four.json", close: true),
        ])
        #expect(outcome.responses.map(\.status) == [204, 204, 200, 200])
        #expect(outcome.responses.map(\.bodyText) == ["", "", "POST /three.json body=3", "GET /four.json body="])
        #expect(runs == ["PUT /empty.json 1", "GET /empty-too.json ", "POST /three.json 3", "GET /four.json "])
    }

    @Test func chunkedBodyIsRefusedCleanlyAndTheRequestBehindItIsAnswered() async throws {
        let chunked = "PUT /c.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n"
        let (outcome, runs) = try await exchange([chunked, Self.get("/after.json", close: true)])
        #expect(outcome.responses.map(\.status) == [411, 200])
        #expect(outcome.responses.first?.headers["connection"] == "close")
        #expect(outcome.responses.last?.bodyText == "GET /after.json body=")
        #expect(runs == ["GET /after.json "])
    }

    @Test func requestAnsweredByTheLibraryItselfThenAPipelinedBodyRequest() async throws {
        // libwebsockets refuses an unknown upgrade with 403 on its own, before any callback.
        let refused = "GET /x.json HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: nonsense\r\n\r\n"
        let (outcome, runs) = try await exchange([refused, Self.put("/b.json", "xyz", close: true)])
        #expect(outcome.responses.map(\.status) == [403, 200])
        #expect(outcome.responses.last?.bodyText == "PUT /b.json body=xyz")
        #expect(runs == ["PUT /b.json xyz"])
    }

    @Test func manyPipelinedRequestsAreEachAnsweredOnceInOrder() async throws {
        // More than libwebsockets reads at once (4 KB), so bytes still wait in the socket too.
        let requests = (0..<60).map { index in
            switch index % 3 {
            case 0: Self.put("/n/\(index).json", String(repeating: "p", count: 100 + index))
            case 1: Self.get("/n/\(index).json")
            default: Self.post("/n/\(index).json", "\(index)")
            }
        }
        let (outcome, runs) = try await exchange(requests)
        #expect(outcome.responses.count == 60)
        #expect(runs.count == 60)
        #expect(
            runs
                == requests.map { request in
                    let line = request.prefix { $0 != "\r" }.split(separator: " ")
                    let body = request.components(separatedBy: "\r\n\r\n").last ?? ""
                    return "\(line[0]) \(line[1]) \(body)"
                })
        #expect(
            outcome.responses.map(\.bodyText)
                == runs.map { run in
                    let parts = run.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                    return "\(parts[0]) \(parts[1]) body=\(parts[2])"
                })
    }

    @Test func largeBodyFollowedByAPipelinedRequest() async throws {
        let body = String(repeating: "b", count: 300_000)
        let (outcome, runs) = try await exchange([Self.put("/big.json", body), Self.get("/after.json", close: true)])
        #expect(outcome.responses.map(\.bodyText) == ["PUT /big.json body=\(body)", "GET /after.json body="])
        #expect(runs == ["PUT /big.json \(body)", "GET /after.json "])
    }

    /// While a handler works, the bytes of the next request wait; the service loop must sleep
    /// meanwhile rather than spin. Measured as service passes while 50 other requests are served.
    @Test(arguments: [
        [put("/slow.json", "abc"), get("/next.json", close: true)],
        [get("/slow.json"), get("/next.json", close: true)],
        [get("/slow.json"), put("/next.json", "xyz", close: true)],
    ])
    func pipelinedBytesBehindAWaitingHandlerDoNotSpin(requests: [String]) async throws {
        let handler = RecordingHandler()
        let entered = Inbox(handler.entered)
        let server = try await LoopbackServer.start(httpHandler: handler)
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port
        let client = Task { try await PipeliningClient.run(port: port, requests: requests) }
        #expect(try await entered.next("slow handler started") == "/slow.json")
        let before = server.listener.servicePasses
        for index in 0..<50 {
            let response = try await RawHTTPClient.send(port: port, method: "GET", target: "/other/\(index).json")
            #expect(response.status == 200)
        }
        let passes = server.listener.servicePasses - before
        handler.release()
        let outcome = try await client.value
        #expect(outcome.responses.count == 2)
        #expect(outcome.responses.first?.bodyText.hasPrefix("\(requests[0].prefix(3)) /slow.json") == true)
        #expect(passes < 50 * 30, "\(passes) service passes while 50 requests were served: the loop spins")
    }

    /// A stream waiting for its next event must not spin either when its client sends more
    /// bytes or half-closes; the next event still goes out.
    @Test func idleStreamWhoseClientSendsMoreAndHalfClosesDoesNotSpin() async throws {
        let (feeds, feedContinuation) = AsyncStream.makeStream(of: AsyncStream<[UInt8]>.Continuation.self)
        let feedInbox = Inbox(feeds)
        let server = try await LoopbackServer.start(httpHandler: DescribingHandler(feeds: feedContinuation))
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port
        let (socket, _) = try await RawHTTPClient.openUntil(
            port: port,
            request: Array("GET /endless.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".utf8),
            marker: "\"data\":null}\n\n")
        defer { RawHTTPClient.closeSocket(socket) }
        let feed = try await feedInbox.next("stream feed")
        try await RawHTTPClient.write(socket, Array(Self.get("/behind-the-stream.json").utf8))
        shutdown(socket, Int32(SHUT_WR))
        let before = server.listener.servicePasses
        for index in 0..<50 {
            let response = try await RawHTTPClient.send(port: port, method: "GET", target: "/other/\(index).json")
            #expect(response.status == 200)
        }
        let passes = server.listener.servicePasses - before
        #expect(passes < 50 * 30, "\(passes) service passes while 50 requests were served: the loop spins")
        feed.yield(Array("event: put\ndata: {\"path\":\"/\",\"data\":7}\n\n".utf8))
        let more = try await RawHTTPClient.read(socket, atLeast: 1)
        #expect(String(decoding: more, as: UTF8.self).contains(#""data":7"#))
    }
}
