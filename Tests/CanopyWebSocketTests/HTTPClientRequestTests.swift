import CanopyTestSupport
import Foundation
import Testing

@testable import CanopyWebSocket

/// Answers what the client tests ask: `/echo` describes the request, `/large` sends a body of
/// `size` bytes, `/stream` streams two chunks without a length, `/silent` streams nothing.
private struct ClientTestHandler: HTTPHandler {
    static let largeByte = UInt8(ascii: "z")

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/large":
            let size = Int(request.queryValue("size") ?? "") ?? 0
            return .complete(status: 200, headers: [], body: [UInt8](repeating: Self.largeByte, count: size))
        case "/stream":
            let (body, continuation) = AsyncStream.makeStream(of: [UInt8].self)
            continuation.yield(Array("first\n".utf8))
            continuation.yield(Array("second\n".utf8))
            continuation.finish()
            return .stream(status: 200, headers: [HTTPHeader("content-type", "text/event-stream")], body: body)
        case "/silent":
            let (body, _) = AsyncStream.makeStream(of: [UInt8].self)
            return .stream(status: 200, headers: [], body: body)
        default:
            let query = request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let body =
                request.body.count > 100 ? "\(request.body.count) bytes" : String(decoding: request.body, as: UTF8.self)
            return .text(
                request.path == "/missing" ? 404 : 200,
                "\(request.method) \(request.path)?\(query) host=\(request.header("host") ?? "") "
                    + "accept=\(request.header("accept") ?? "") type=\(request.header("content-type") ?? "") "
                    + "body=\(body)")
        }
    }
}

/// What one request produced: its events, or the error that ended them.
private struct Outcome {
    var events: [HTTPClientEvent] = []
    var error: (any Error)?

    var status: Int? {
        for case .response(let status, _) in events { return status }
        return nil
    }

    var contentLength: Int?? {
        for case .response(_, let length) in events { return length }
        return nil
    }

    var body: [UInt8] {
        events.flatMap { event -> [UInt8] in
            if case .data(let bytes) = event { return bytes }
            return []
        }
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// Runs `request` to its end (bounded).
    static func of(_ request: HTTPClientRequest, seconds: Double = 15) async throws -> Outcome {
        try await withDeadline("\(request.method) \(request.target)", seconds: seconds) {
            var outcome = Outcome()
            do {
                for try await event in request.start() { outcome.events.append(event) }
            } catch {
                outcome.error = error
            }
            return outcome
        }
    }
}

@Suite struct HTTPClientRequestTests {
    @Test func requestCarriesMethodTargetHeadersAndBody() async throws {
        let server = try await LoopbackServer.start(httpHandler: ClientTestHandler())
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port
        let request = try HTTPClientRequest(
            method: "PATCH", url: "http://127.0.0.1:\(port)/echo?orderBy=%22%24key%22&x",
            headers: [HTTPHeader("Accept", "application/json"), HTTPHeader("Content-Type", "application/json")],
            body: Array(#"{"a":1}"#.utf8))
        #expect(request.target == "/echo?orderBy=%22%24key%22&x")
        let outcome = try await Outcome.of(request)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.status == 200)
        #expect(
            outcome.text
                == #"PATCH /echo?orderBy="$key"&x= host=127.0.0.1:\#(port) accept=application/json "#
                + #"type=application/json body={"a":1}"#)
        #expect(outcome.events.first == .sent(7, of: 7))
        #expect(outcome.contentLength == .some(outcome.body.count))

        // An error status is a response like any other; NAME.localhost reaches the loopback
        // interface and keeps its name in the Host header.
        let missing = try await Outcome.of(
            try HTTPClientRequest(method: "DELETE", url: "http://demo.localhost:\(port)/missing"))
        #expect(missing.status == 404)
        #expect(missing.text == "DELETE /missing? host=demo.localhost:\(port) accept= type= body=")
    }

    @Test func largeBodiesBothWaysArriveWhole() async throws {
        let server = try await LoopbackServer.start(httpHandler: ClientTestHandler())
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port
        let size = 700_001
        let upload = try await Outcome.of(
            try HTTPClientRequest(
                method: "PUT", url: "http://127.0.0.1:\(port)/echo", body: [UInt8](repeating: 1, count: size)))
        #expect(upload.text.hasSuffix("body=\(size) bytes"), "\(upload.text.prefix(200))")
        let progress = upload.events.compactMap { event -> Int? in
            if case .sent(let done, let total) = event, total == size { return done }
            return nil
        }
        #expect(progress.count > 1)
        #expect(progress == progress.sorted() && progress.last == size)

        let download = try await Outcome.of(
            try HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(port)/large?size=\(size)"))
        #expect(download.error == nil, "\(String(describing: download.error))")
        #expect(download.contentLength == .some(size))
        #expect(download.body.count == size)
        #expect(download.body.allSatisfy { $0 == ClientTestHandler.largeByte })
    }

    @Test func streamWithoutLengthEndsWithTheConnection() async throws {
        let server = try await LoopbackServer.start(httpHandler: ClientTestHandler())
        defer { Task { await server.listener.stop() } }
        let outcome = try await Outcome.of(
            try HTTPClientRequest(
                method: "GET", url: "http://127.0.0.1:\(server.listener.port)/stream",
                headers: [HTTPHeader("Accept", "text/event-stream")]))
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.contentLength == .some(nil))
        #expect(outcome.text == "first\nsecond\n")
    }

    @Test func silenceLongerThanTheIdleTimeoutFailsTheRequest() async throws {
        let server = try await LoopbackServer.start(httpHandler: ClientTestHandler())
        defer { Task { await server.listener.stop() } }
        let outcome = try await Outcome.of(
            try HTTPClientRequest(
                method: "GET", url: "http://127.0.0.1:\(server.listener.port)/silent", idleTimeoutSeconds: 1))
        #expect(outcome.status == 200)
        guard case .connectionFailed(let reason, _)? = outcome.error as? WebSocketError else {
            Issue.record("expected a timeout, got \(String(describing: outcome.error))")
            return
        }
        #expect(reason.contains("sent nothing for 1 seconds"), "\(reason)")
    }

    @Test func refusedConnectionAndBadURLsAreTypedErrors() async throws {
        // A port nothing listens on: bind a listener, note its port, stop it.
        let stopped = try await LoopbackServer.start()
        let port = stopped.listener.port
        await stopped.listener.stop()
        let refused = try await Outcome.of(try HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        #expect(refused.events.isEmpty)
        guard case .connectionFailed? = refused.error as? WebSocketError else {
            Issue.record("expected connectionFailed, got \(String(describing: refused.error))")
            return
        }
        #expect(throws: WebSocketError.invalidURL("ftp://127.0.0.1/")) {
            try HTTPClientRequest(method: "GET", url: "ftp://127.0.0.1/")
        }
        #expect(throws: WebSocketError.invalidURL("https://127.0.0.1:0/")) {
            try HTTPClientRequest(method: "GET", url: "https://127.0.0.1:0/")
        }
    }

    @Test func httpsIsVerifiedAgainstTheSystemStoreAndTheCustomAuthority() async throws {
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let server = try await LoopbackServer.start(
            httpHandler: ClientTestHandler(),
            tls: certificate.serverTLS)
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port

        let strict = try await Outcome.of(try HTTPClientRequest(method: "GET", url: "https://127.0.0.1:\(port)/echo"))
        #expect(strict.events.isEmpty)
        guard case .connectionFailed(let reason, let log)? = strict.error as? WebSocketError else {
            Issue.record("expected connectionFailed, got \(String(describing: strict.error))")
            return
        }
        #expect((reason + log.joined()).contains("self-signed certificate"), "\(reason) \(log)")

        let trusted = WebSocketTLSOptions(customCAFile: certificate.certificateFile)
        for host in ["127.0.0.1", "localhost"] {
            let outcome = try await Outcome.of(
                try HTTPClientRequest(
                    method: "PUT", url: "https://\(host):\(port)/echo", body: Array("secret".utf8), tls: trusted))
            #expect(outcome.error == nil, "\(host): \(String(describing: outcome.error))")
            #expect(outcome.text.hasSuffix("body=secret"), "\(host): \(outcome.text)")
        }

        // The authority vouches for localhost and 127.0.0.1 only.
        let otherName = try await Outcome.of(
            try HTTPClientRequest(method: "GET", url: "https://demo.localhost:\(port)/echo", tls: trusted))
        guard case .connectionFailed(let mismatch, let mismatchLog)? = otherName.error as? WebSocketError else {
            Issue.record("expected a host name mismatch, got \(String(describing: otherName.error))")
            return
        }
        #expect((mismatch + mismatchLog.joined()).contains("mismatch"), "\(mismatch) \(mismatchLog)")
    }

    /// Creating a TLS context re-keys libwebsockets' OpenSSL glue, which used to fail client
    /// handshakes in flight on other contexts ("can't get wsi from ssl privdata", most of the
    /// lanes below without ``LWSTLSGate``).
    @Test func tlsHandshakesSurviveTLSContextsCreatedMeanwhile() async throws {
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let server = try await LoopbackServer.start(
            httpHandler: ClientTestHandler(),
            tls: certificate.serverTLS)
        defer { Task { await server.listener.stop() } }
        let port = server.listener.port
        let trusted = WebSocketTLSOptions(customCAFile: certificate.certificateFile)
        let tls = certificate.serverTLS
        let failures = try await withDeadline("concurrent TLS connections", seconds: 90) {
            try await withThrowingTaskGroup(of: [String].self) { group in
                // TLS contexts come and go (listeners) while handshakes run on others.
                group.addTask {
                    for _ in 0..<40 {
                        let listener = try await WebSocketListener.start(
                            configuration: WebSocketListenerConfiguration(tls: tls, logger: .silent))
                        await listener.stop()
                    }
                    return []
                }
                for lane in 0..<4 {
                    group.addTask {
                        var failures: [String] = []
                        for index in 0..<10 {
                            let outcome = try await Outcome.of(
                                try HTTPClientRequest(
                                    method: "GET", url: "https://127.0.0.1:\(port)/echo?n=\(index)", tls: trusted))
                            if outcome.status != 200 {
                                failures.append("https \(lane).\(index): \(String(describing: outcome.error))")
                            }
                            let client = WebSocketClientTransport(configuration: .init(tls: trusted, logger: .silent))
                            do throws(WebSocketError) {
                                try await client.open(WebSocketEndpoint(host: "127.0.0.1", port: port, isSecure: true))
                                await client.close()
                            } catch {
                                failures.append("wss \(lane).\(index): \(error)")
                            }
                        }
                        return failures
                    }
                }
                var failures: [String] = []
                for try await lane in group { failures += lane }
                return failures
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
