import CanopyWire
import Foundation
import Testing

@testable import CanopyWebSocket

/// Oversized input is refused from what its header announces, before the bytes arrive: the
/// server never buffers (or waits for) more than its limits.
@Suite struct SizeLimitTests {
    @Test func frameAnnouncingMoreThanTheLimitClosesWith1009() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let socket = try await RawHTTPClient.openSilentWebSocket(port: server.listener.port)
        defer { RawHTTPClient.closeSocket(socket) }
        let connection = try await server.connections.next("raw connection")
        let events = Inbox(connection.events)
        try await RawHTTPClient.write(
            socket,
            RawHTTPClient.clientFrameStart(opcode: 0x1, announcedLength: 300_000_000, payload: Array("{\"t\"".utf8)))
        guard case .closed(.failed) = try await events.next("refusal of the 300 MB frame") else {
            Issue.record("an oversized frame should end the connection as failed")
            return
        }
        // A close frame whose status is 1009 (0x03F1). The peer's close frame would be read as
        // payload of the refused frame, so the server does not wait for it: the socket ends
        // after the short close-acknowledgement wait (1 s), not libwebsockets' own 5 s.
        let received = try await RawHTTPClient.read(socket, atLeast: 4)
        let isClose1009 = received[0] == 0x88 && received[2] == 0x03 && received[3] == 0xF1
        #expect(isClose1009, "received \(received.prefix(8))")
        _ = try await withDeadline("the server ends the refused connection", seconds: 3) {
            try await RawHTTPClient.readToEnd(of: socket)
        }

        let (client, clientEvents, other, otherEvents) = try await server.connect()
        await client.send("still served")
        #expect(try await otherEvents.next("frame from another client") == .frame("still served"))
        other.send("reply")
        #expect(try await clientEvents.next("reply to another client") == .frame("reply"))
        await client.close()
    }

    @Test func fragmentedMessageGrowingPastTheLimitCloses() async throws {
        let listener = try await WebSocketListener.start(
            configuration: .init(maximumMessageBytes: 100, logger: .silent))
        defer { Task { await listener.stop() } }
        let connections = Inbox(listener.connections)
        let socket = try await RawHTTPClient.openSilentWebSocket(port: listener.port)
        defer { RawHTTPClient.closeSocket(socket) }
        let events = Inbox(try await connections.next("raw connection").events)
        let sixty = String(repeating: "x", count: 60)
        try await RawHTTPClient.write(
            socket,
            RawHTTPClient.clientFrame(final: false, opcode: 0x1, payload: sixty)
                + RawHTTPClient.clientFrame(final: true, opcode: 0x0, payload: sixty))
        guard case .closed(.failed) = try await events.next("refusal of the 120-byte message") else {
            Issue.record("a message past the limit should end the connection as failed")
            return
        }
    }

    @Test func contentLengthPastTheLimitIsAnswered413WithoutTheBody() async throws {
        let listener = try await WebSocketListener.start(
            configuration: .init(maximumRequestBodyBytes: 1000, logger: .silent), httpHandler: DescribingHandler())
        defer { Task { await listener.stop() } }
        let request = "PUT /a.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 300000000\r\n\r\n"
        let raw = try await withDeadline("413 before any body byte", seconds: 4) {
            try await RawHTTPClient.exchange(port: listener.port, request: Array(request.utf8))
        }
        let response = try RawHTTPClient.parse(raw)
        #expect(response.status == 413)
        #expect(response.bodyText.contains("error"))
        let fits = try await RawHTTPClient.send(
            port: listener.port, method: "PUT", target: "/a.json", body: Array(repeating: 120, count: 1000))
        #expect(fits.status == 201)
    }
}
