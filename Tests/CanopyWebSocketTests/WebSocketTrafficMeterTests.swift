import CanopyWire
import Testing

@testable import CanopyWebSocket

@Suite struct WebSocketTrafficMeterTests {
    @Test func countsConnectionsAndMessageBytesBothWays() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        #expect(
            server.listener.traffic
                == WebSocketTraffic(openConnections: 0, connectionsOpened: 0, bytesReceived: 0, bytesSent: 0))

        let (client, clientEvents, connection, serverEvents) = try await server.connect()
        await client.send("héllo")  // 6 bytes of UTF-8
        #expect(try await serverEvents.next("frame at server") == .frame("héllo"))
        connection.send(frames: ["ab", "cde"])
        connection.send("✓")  // 3 bytes
        #expect(try await clientEvents.next("first frame at client") == .frame("ab"))
        #expect(try await clientEvents.next("second frame at client") == .frame("cde"))
        #expect(try await clientEvents.next("third frame at client") == .frame("✓"))
        #expect(
            server.listener.traffic
                == WebSocketTraffic(openConnections: 1, connectionsOpened: 1, bytesReceived: 6, bytesSent: 8))

        let (second, _, _, secondEvents) = try await server.connect()
        #expect(server.listener.traffic.openConnections == 2)
        await client.close()
        #expect(try await serverEvents.next("first connection closed") == .closed(.closedByPeer))
        await second.close()
        #expect(try await secondEvents.next("second connection closed") == .closed(.closedByPeer))
        // Frames offered after the close are not counted.
        connection.send("late")
        #expect(
            server.listener.traffic
                == WebSocketTraffic(openConnections: 0, connectionsOpened: 2, bytesReceived: 6, bytesSent: 8))
    }
}
