import CanopyTestSupport
import CanopyWire
import Foundation
import Testing

@testable import CanopyWebSocket

/// Collects log lines from the service thread.
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    func append(_ line: String) {
        lock.withLock { collected.append(line) }
    }

    var lines: [String] { lock.withLock { collected } }
}

@Suite struct SecureWebSocketTests {
    @Test func secureWebSocketWithSelfSignedCertificate() async throws {
        guard let openssl = SelfSignedCertificate.openssl else {
            print("SecureWebSocketTests: skipped, no `openssl` executable to make a certificate")
            return
        }
        let certificate = try SelfSignedCertificate.make(openssl: openssl)
        defer { certificate.remove() }
        let server = try await LoopbackServer.start(
            tls: certificate.serverTLS)
        defer { Task { await server.listener.stop() } }
        var target = server.target
        target.isSecure = true

        // Accepted when self-signed certificates are allowed.
        let (client, clientEvents, connection, serverEvents) = try await server.connect(
            target: target,
            configuration: .init(tls: WebSocketTLSOptions(allowsSelfSigned: true), logger: .silent))
        await client.send("over tls")
        #expect(try await serverEvents.next("frame over TLS") == .frame("over tls"))
        let large = String(repeating: "secure ", count: 20_000)
        connection.send(large)
        #expect(try await clientEvents.next("large frame over TLS") == .frame(large))
        await client.close()
        #expect(try await clientEvents.next("close over TLS") == .closed(.closedLocally))

        // Accepted with the certificate as a custom authority.
        let (trusting, trustingEvents, _, _) = try await server.connect(
            target: target,
            configuration: .init(tls: WebSocketTLSOptions(customCAFile: certificate.certificateFile), logger: .silent))
        await trusting.close()
        #expect(try await trustingEvents.next("close with custom CA") == .closed(.closedLocally))

        // Refused by strict verification against the system store, with a typed reason; the
        // library's own explanation reaches both the error and the logger.
        let logged = LogCollector()
        let strict = WebSocketClientTransport(
            configuration: .init(
                connectTimeoutSeconds: 5,
                logger: WebSocketLogger(minimumLevel: .warning) { level, line in logged.append("\(level) \(line)") }))
        let error = try await withDeadline("strict TLS connect") { () -> WebSocketError? in
            do throws(WebSocketError) {
                try await strict.open(
                    WebSocketEndpoint(host: "127.0.0.1", port: server.listener.port, isSecure: true, path: "/.ws"))
                return nil
            } catch {
                return error
            }
        }
        guard case .connectionFailed(let reason, let log) = try #require(error) else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(!reason.isEmpty)
        #expect(!log.isEmpty, "the lws log line explaining the TLS failure should be carried by the error")
        #expect(logged.lines.contains { line in log.contains { line.hasSuffix($0) } })
    }
}
