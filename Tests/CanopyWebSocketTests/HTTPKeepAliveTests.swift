import Foundation
import Testing

@testable import CanopyWebSocket

#if canImport(Glibc)
    import Glibc
#endif

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
/// SDKs do, over pooled connections) and keeps its connection.
@Suite struct HTTPKeepAliveTests {
    /// Sends each request only once the previous response is complete, all on one connection.
    private func sequentially(_ requests: [String]) async throws -> [RawHTTPClient.Response] {
        let server = try await LoopbackServer.start(httpHandler: EchoHandler())
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port
        return try await RawHTTPClient.onThread {
            let socket = try RawHTTPClient.connect(port: port)
            defer { close(socket) }
            var responses: [RawHTTPClient.Response] = []
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            for request in requests {
                try RawHTTPClient.sendAll(socket, Array(request.utf8))
                while true {
                    if let split = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                        let head = try RawHTTPClient.parse(Array(received[..<split.upperBound]))
                        let end = split.upperBound + (Int(head.headers["content-length"] ?? "") ?? 0)
                        if received.count >= end {
                            responses.append(try RawHTTPClient.parse(Array(received[..<end])))
                            received.removeFirst(end)
                            break
                        }
                    }
                    let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else {
                        throw WaitFailure(description: "connection ended after \(responses.count) responses")
                    }
                    received += buffer[..<count]
                }
            }
            return responses
        }
    }

    @Test func requestsWithAndWithoutBodiesShareOneConnection() async throws {
        let responses = try await sequentially([
            "PUT /one.json HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
            "GET /two.json HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /three.json HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n3",
            "GET /four.json HTTP/1.1\r\nHost: x\r\n\r\n",
        ])
        #expect(
            responses.map(\.bodyText) == [
                "PUT /one.json body=abc", "GET /two.json body=", "POST /three.json body=3", "GET /four.json body=",
            ])
        #expect(responses.allSatisfy { $0.headers["connection"] == nil })
    }

    @Test func emptyResponsesKeepTheConnection() async throws {
        let responses = try await sequentially([
            "PUT /empty.json HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n1",
            "GET /empty-too.json HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /three.json HTTP/1.1\r\nHost: x\r\n\r\n",
        ])
        #expect(responses.map(\.status) == [204, 204, 200])
        #expect(responses.map(\.body.count) == [0, 0, 21])
        #expect(responses.last?.bodyText == "GET /three.json body=")
    }
}
