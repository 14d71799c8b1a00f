import Canopy
import CanopyScenarios
import CanopyTestSupport
import CanopyWebSocket
import CanopyWire
import Foundation
import Synchronization
import Testing

/// Hands out websocket transports whose events are also recorded, so a test can see each
/// connection attempt end (and why) without waiting on the database's own state.
private struct RecordedTransportFactory: ClientTransportFactory {
    let inner: WebSocketClientTransportFactory
    /// Every event of every transport made, in order.
    let events: EventLog<ClientTransportEvent>

    func makeTransport() -> any ClientTransport {
        RecordedTransport(inner: inner.makeTransport(), log: events)
    }
}

/// A transport whose events go both to its consumer and to a log.
private final class RecordedTransport: ClientTransport {
    private let inner: any ClientTransport
    let events: AsyncStream<ClientTransportEvent>

    init(inner: any ClientTransport, log: EventLog<ClientTransportEvent>) {
        self.inner = inner
        let (events, continuation) = AsyncStream.makeStream(of: ClientTransportEvent.self)
        self.events = events
        let source = inner.events
        Task {
            for await event in source {
                log.append(event)
                continuation.yield(event)
            }
            continuation.finish()
        }
    }

    func connect(to target: ConnectionTarget) async { await inner.connect(to: target) }
    func send(_ frame: String) async { await inner.send(frame) }
    func close() async { await inner.close() }
}

/// What one HTTPS request produced.
private struct HTTPSReply {
    var status = 0
    var body: [UInt8] = []
    var text: String { String(decoding: body, as: UTF8.self) }

    /// Sends `method` to `target` on `server` over https, trusting its certificate.
    static func send(
        _ method: String, _ target: String, body: String? = nil, to server: ServeProcess
    ) async throws -> HTTPSReply {
        let request = try HTTPClientRequest(
            method: method, url: "https://127.0.0.1:\(server.port)\(target)", body: body.map { Array($0.utf8) },
            tls: server.clientTLS, idleTimeoutSeconds: 30)
        var reply = HTTPSReply()
        for try await event in request.start() {
            switch event {
            case .response(let status, _): reply.status = status
            case .data(let bytes): reply.body += bytes
            case .sent: break
            }
        }
        return reply
    }
}

/// `canopy serve --tls-cert --tls-key` with a fresh self-signed certificate for
/// 127.0.0.1/localhost: database clients over `wss://`, the REST API and Server-Sent Events
/// over `https://`, and clients that do not trust the certificate kept out.
@Suite struct SecureServeEndToEndTests {
    @Test func clientsTrustingTheCertificateSyncOverWSS() async throws {
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let server = try await ServeProcess(namespace: "secure", certificate: certificate)
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let writer = server.database()
        let reader = server.database()
        let values = EventLog<String>()
        reader.reference(withPath: "greeting").observe(.value) { values.append(($0.value as? String) ?? "null") }
        #expect(try await values.next(within: 30, "the first value") == "null")

        try await writer.reference(withPath: "greeting").setValue("hello over wss")
        #expect(try await values.next(within: 30, "the written value") == "hello over wss")
        // The write is on the server, read back over https.
        #expect(try await server.value(at: "greeting") == #""hello over wss""#)

        writer.goOffline()
        reader.goOffline()
        #expect(try await server.terminate() == 0)
    }

    @Test func clientNotTrustingTheCertificateNeverConnects() async throws {
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let server = try await ServeProcess(namespace: "secure", certificate: certificate)
        let attempts = EventLog<ClientTransportEvent>()
        let states = Mutex<[Bool]>([])
        // Verification against the system store only: the self-signed certificate is refused.
        let factory = RecordedTransportFactory(
            inner: WebSocketClientTransportFactory(configuration: .init(logger: .silent)), events: attempts)
        let stranger = Database(url: server.url, transportFactory: factory)
        stranger.reference(withPath: ".info/connected").observe(.value) { snapshot in
            states.withLock { $0.append(snapshot.value as? Bool == true) }
        }
        stranger.reference(withPath: "greeting").observe(.value) { _ in }

        for attempt in 1...2 {
            let event = try await attempts.next(within: 60, "connection attempt \(attempt) to end")
            guard case .closed(.failed(let reason)) = event else {
                Issue.record("attempt \(attempt): expected a failed connection, got \(event)")
                break
            }
            #expect(reason.contains("self-signed certificate"), "\(reason)")
        }
        // No attempt ever opened, so the client never counted itself connected.
        #expect(!states.withLock { $0 }.contains(true))
        stranger.goOffline()

        // The refused handshakes did not disturb the server: a trusting client gets in.
        let trusting = server.database()
        try await trusting.reference(withPath: "after").setValue(1)
        #expect(try await server.value(at: "after") == "1")
        trusting.goOffline()
        #expect(try await server.terminate() == 0)
    }

    @Test func restAndServerSentEventsOverHTTPS() async throws {
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let server = try await ServeProcess(namespace: "secure", certificate: certificate)

        let put = try await HTTPSReply.send("PUT", "/rest/item.json?ns=secure", body: #"{"n":1}"#, to: server)
        #expect(put.status == 200)
        #expect(put.text == #"{"n":1}"#)
        let get = try await HTTPSReply.send("GET", "/rest.json?ns=secure", to: server)
        #expect(get.status == 200)
        #expect(get.text == #"{"item":{"n":1}}"#)

        // An event stream over https: the current value first, then a change made by a
        // database client over wss.
        let chunks = EventLog<String>()
        let stream = try HTTPClientRequest(
            method: "GET", url: "https://127.0.0.1:\(server.port)/rest.json?ns=secure",
            headers: [HTTPHeader("Accept", "text/event-stream")], tls: server.clientTLS, idleTimeoutSeconds: 60)
        let reading = Task {
            for try await event in stream.start() {
                switch event {
                case .response(let status, _): chunks.append("status \(status)\n")
                case .data(let bytes): chunks.append(String(decoding: bytes, as: UTF8.self))
                case .sent: break
                }
            }
        }
        defer { reading.cancel() }
        var received = ""
        func receive(_ expected: String) async throws {
            while !received.contains(expected) {
                received += try await chunks.next(within: 30, "\(expected) on the event stream; so far: \(received)")
            }
        }
        try await receive("status 200\n")
        try await receive("event: put\ndata: {\"path\":\"/\",\"data\":{\"item\":{\"n\":1}}}\n\n")

        let client = server.database()
        try await client.reference(withPath: "rest/item/n").setValue(2)
        try await receive("event: put\ndata: {\"path\":\"/item/n\",\"data\":2}\n\n")
        client.goOffline()

        // Plain http on the TLS port gets no answer, and the server keeps serving.
        let plain = try? await RawSocket.http(port: server.port, method: "GET", target: "/rest.json?ns=secure")
        #expect(plain?.status != 200)
        let after = try await HTTPSReply.send("GET", "/rest/item/n.json?ns=secure", to: server)
        #expect(after.text == "2")
        #expect(try await server.terminate() == 0)
    }
}
