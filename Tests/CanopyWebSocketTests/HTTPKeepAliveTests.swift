import Foundation
import Testing

@testable import CanopyWebSocket

/// Answers `/empty…` with `204` and no body, anything else with `200` naming the method,
/// path and body it got.
private struct EchoHandler: HTTPHandler {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if request.path.hasPrefix("/empty") {
            return .complete(status: 204, headers: [], body: [])
        }
        let body = String(decoding: request.body, as: UTF8.self)
        return .text(200, "\(request.method) \(request.path) body=\(body)")
    }
}

/// A response's last byte and the end of its HTTP transaction go out together, so a
/// keep-alive client may send its next request the moment it has read a response (official
/// SDKs do, over pooled connections) — here, the next request is already waiting.
@Suite struct HTTPKeepAliveTests {
    private func responses(_ requests: [String]) async throws -> [RawHTTPClient.Response] {
        let server = try await LoopbackServer.start(httpHandler: EchoHandler())
        defer { Task { await server.listener.stop() } }
        let raw = try await RawHTTPClient.exchange(
            port: server.listener.port, request: Array(requests.joined().utf8))
        let text = String(decoding: raw, as: UTF8.self)
        var starts = [text.startIndex]
        var searchFrom = text.startIndex
        while let next = text.range(of: "HTTP/1.1 ", range: text.index(after: searchFrom)..<text.endIndex) {
            starts.append(next.lowerBound)
            searchFrom = next.lowerBound
        }
        let ends = starts.dropFirst() + [text.endIndex]
        return try zip(starts, ends).map { try RawHTTPClient.parse(Array(text[$0..<$1].utf8)) }
    }

    @Test func requestWaitingBehindABodyResponseIsAnswered() async throws {
        let answers = try await responses([
            "PUT /one.json HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
            "GET /two.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ])
        #expect(answers.map(\.status) == [200, 200])
        #expect(answers.map(\.bodyText) == ["PUT /one.json body=abc", "GET /two.json body="])
    }

    @Test func requestWaitingBehindAnEmptyResponseIsAnswered() async throws {
        let answers = try await responses([
            "PUT /empty.json HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n1",
            "GET /empty-too.json HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /three.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ])
        #expect(answers.map(\.status) == [204, 204, 200])
        #expect(answers.map(\.body.count) == [0, 0, answers.last?.body.count ?? 0])
        #expect(answers.last?.bodyText == "GET /three.json body=")
    }
}
