import CanopyWire
import Foundation
import Testing

@testable import CanopyWebSocket

/// A listener on an ephemeral port of 127.0.0.1 and helpers to open clients against it.
struct LoopbackServer {
    let listener: WebSocketListener
    let connections: Inbox<any ServerConnection>

    static func start(
        httpHandler: any HTTPHandler = NotFoundHTTPHandler(), tls: WebSocketServerTLS? = nil
    ) async throws -> LoopbackServer {
        let listener = try await WebSocketListener.start(
            configuration: WebSocketListenerConfiguration(tls: tls, logger: .silent), httpHandler: httpHandler)
        return LoopbackServer(listener: listener, connections: Inbox(listener.connections))
    }

    var target: ConnectionTarget {
        ConnectionTarget(host: "127.0.0.1:\(listener.port)", namespace: "demo")
    }

    /// Connects a client and waits for `.opened`; returns it with its event inbox and the
    /// server's side of the connection.
    func connect(
        target: ConnectionTarget? = nil, configuration: WebSocketClientConfiguration = .init(logger: .silent)
    ) async throws -> (
        WebSocketClientTransport, Inbox<ClientTransportEvent>, WebSocketServerConnection, Inbox<ServerConnectionEvent>
    ) {
        let client = WebSocketClientTransport(configuration: configuration)
        let events = Inbox(client.events)
        await client.connect(to: target ?? self.target)
        let opened = try await events.next("client .opened")
        #expect(opened == .opened)
        let accepted = try await connections.next("accepted connection")
        let server = try #require(accepted as? WebSocketServerConnection)
        return (client, events, server, Inbox(server.events))
    }
}

@Suite struct WebSocketExchangeTests {
    @Test func textFramesBothWaysSmallAndLarge() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let (client, clientEvents, connection, serverEvents) = try await server.connect()

        await client.send("hello")
        #expect(try await serverEvents.next("small frame at server") == .frame("hello"))
        connection.send("héllo ✓")
        #expect(try await clientEvents.next("small frame at client") == .frame("héllo ✓"))

        let large = String((0..<100_000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        await client.send(large)
        #expect(try await serverEvents.next("100 KB frame at server") == .frame(large))
        let largeUnicode = String(repeating: "ü€😀", count: 12_000)
        connection.send(largeUnicode)
        #expect(try await clientEvents.next("100 KB frame at client") == .frame(largeUnicode))
        await client.close()
    }

    @Test func manyMessagesArriveInOrder() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let (client, clientEvents, connection, serverEvents) = try await server.connect()
        let count = 3000
        for index in 0..<count { try client.sendNow("c\(index)") }
        for index in 0..<count { connection.send("s\(index)") }
        for index in 0..<count {
            #expect(try await serverEvents.next("client message \(index)") == .frame("c\(index)"))
        }
        for index in 0..<count {
            #expect(try await clientEvents.next("server message \(index)") == .frame("s\(index)"))
        }
    }

    @Test func clientCloseIsSeenByServer() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let (client, clientEvents, _, serverEvents) = try await server.connect()
        await client.send("last words")
        await client.close()
        #expect(try await serverEvents.next("last frame") == .frame("last words"))
        #expect(try await serverEvents.next("server close") == .closed(.closedByPeer))
        #expect(try await clientEvents.next("client close") == .closed(.closedLocally))
        #expect(await clientEvents.isDrained)
    }

    @Test func serverCloseIsSeenByClient() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let (client, clientEvents, connection, serverEvents) = try await server.connect()
        connection.send("bye")
        connection.close()
        #expect(try await clientEvents.next("last frame") == .frame("bye"))
        #expect(try await clientEvents.next("client close") == .closed(.closedByPeer))
        #expect(try await serverEvents.next("server close") == .closed(.closedLocally))
        await client.send("ignored after close")
        #expect(throws: WebSocketError.connectionClosed) { try client.sendNow("too late") }
    }

    @Test func severalConcurrentClients() async throws {
        let listener = try await WebSocketListener.start(configuration: .init(logger: .silent))
        defer { Task { await listener.stop() } }
        let target = ConnectionTarget(host: "127.0.0.1:\(listener.port)", namespace: "demo")
        let echo = Task {
            await withTaskGroup(of: Void.self) { group in
                for await connection in listener.connections {
                    group.addTask {
                        for await event in connection.events {
                            if case .frame(let text) = event { connection.send("echo:" + text) }
                        }
                    }
                }
            }
        }
        defer { echo.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for clientIndex in 0..<6 {
                group.addTask { () async throws -> Void in
                    let client = WebSocketClientTransport(configuration: .init(logger: .silent))
                    let events = Inbox(client.events)
                    await client.connect(to: target)
                    #expect(try await events.next("opened \(clientIndex)") == .opened)
                    for message in 0..<50 { await client.send("\(clientIndex)-\(message)") }
                    for message in 0..<50 {
                        #expect(
                            try await events.next("echo \(clientIndex)-\(message)")
                                == .frame("echo:\(clientIndex)-\(message)"))
                    }
                    await client.close()
                    #expect(try await events.next("close \(clientIndex)") == .closed(.closedLocally))
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func upgradeRequestCarriesNamespaceParametersAndHeaders() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let target = ConnectionTarget(
            host: "127.0.0.1:\(server.listener.port)", namespace: "my-db", lastSessionID: "b7c2",
            extraParameters: [.init("p", "1:123:web:abc")],
            headers: [.init("User-Agent", "Firebase/5/test"), .init("X-Firebase-GMPID", "1:123")])
        let (client, _, connection, _) = try await server.connect(target: target)
        #expect(connection.path == "/.ws")
        #expect(connection.request.protocolVersion == "5")
        #expect(connection.request.namespace == "my-db")
        #expect(connection.request.lastSessionID == "b7c2")
        #expect(connection.request.parameter("p") == "1:123:web:abc")
        #expect(connection.request.host == "127.0.0.1:\(server.listener.port)")
        #expect(connection.request.header("user-agent") == "Firebase/5/test")
        #expect(connection.request.header("x-firebase-gmpid") == "1:123")
        #expect(connection.request.remoteAddress == "127.0.0.1")
        #expect(connection.request.header("origin") == nil)
        await client.close()
    }

    @Test func pingIsAnsweredWithPong() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let (client, _, connection, serverEvents) = try await server.connect()
        connection.sendPing()
        #expect(try await serverEvents.next("pong") == .pong)
        await client.close()
    }

    @Test func connectingToAClosedPortFailsWithATypedError() async throws {
        let server = try await LoopbackServer.start()
        let port = server.listener.port
        await server.listener.stop()
        let client = WebSocketClientTransport(configuration: .init(connectTimeoutSeconds: 5, logger: .silent))
        let events = Inbox(client.events)
        let error = try await withDeadline("connect to closed port") { () -> WebSocketError? in
            do throws(WebSocketError) {
                try await client.open(WebSocketEndpoint(host: "127.0.0.1", port: port, isSecure: false, path: "/.ws"))
                return nil
            } catch {
                return error
            }
        }
        guard case .connectionFailed(let reason, _) = try #require(error) else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(!reason.isEmpty)
        guard case .closed(.failed(let text)) = try await events.next("failure event") else {
            Issue.record("expected a failed close event")
            return
        }
        #expect(text.contains(reason))
        #expect(await events.isDrained)
    }

    @Test func closedListenerRefusesNewConnectionsButKeepsOpenOnes() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let (client, clientEvents, connection, serverEvents) = try await server.connect()
        await server.listener.close()
        let late = WebSocketClientTransport(configuration: .init(connectTimeoutSeconds: 5, logger: .silent))
        let lateEvents = Inbox(late.events)
        await late.connect(to: server.target)
        guard case .closed(.failed) = try await lateEvents.next("refusal") else {
            Issue.record("a connection after close() should fail")
            return
        }
        await client.send("still here")
        #expect(try await serverEvents.next("frame after close()") == .frame("still here"))
        connection.send("me too")
        #expect(try await clientEvents.next("reply after close()") == .frame("me too"))
        await client.close()
        #expect(try await serverEvents.next("close") == .closed(.closedByPeer))
    }

    @Test func fragmentedMessagesAreReassembled() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        let socket = try await RawHTTPClient.openSilentWebSocket(port: server.listener.port)
        defer { RawHTTPClient.closeSocket(socket) }
        let connection = try await server.connections.next("raw connection")
        let events = Inbox(connection.events)
        let frames =
            RawHTTPClient.clientFrame(final: false, opcode: 0x1, payload: "{\"t\":\"d\",")
            + RawHTTPClient.clientFrame(final: false, opcode: 0x0, payload: "\"d\":")
            + RawHTTPClient.clientFrame(final: true, opcode: 0x0, payload: "{}}")
            + RawHTTPClient.clientFrame(final: true, opcode: 0x1, payload: "next")
        try await RawHTTPClient.write(socket, frames)
        #expect(try await events.next("reassembled message") == .frame(#"{"t":"d","d":{}}"#))
        #expect(try await events.next("following message") == .frame("next"))
    }

    @Test func keepaliveDropsAPeerThatStopsAnswering() async throws {
        let listener = try await WebSocketListener.start(
            configuration: .init(keepalive: WebSocketKeepalive(pingInterval: 1, hangupInterval: 2), logger: .silent))
        defer { Task { await listener.stop() } }
        let connections = Inbox(listener.connections)
        let socket = try await RawHTTPClient.openSilentWebSocket(port: listener.port)
        defer { RawHTTPClient.closeSocket(socket) }
        let connection = try await connections.next("silent connection")
        let events = Inbox(connection.events)
        guard case .closed(.failed) = try await events.next("dead-peer close", timeout: .seconds(20)) else {
            Issue.record("a silent peer should be dropped as failed")
            return
        }
    }

    @Test func stoppingTheListenerClosesConnectionsWithGoingAway() async throws {
        let server = try await LoopbackServer.start()
        let (client, clientEvents, _, serverEvents) = try await server.connect()
        try await withDeadline("graceful stop") { await server.listener.stop() }
        let clientClose = try await clientEvents.next("client sees the shutdown")
        #expect(clientClose == .closed(.closedByPeer), "\(clientClose)")
        #expect(throws: WebSocketError.connectionClosed) { try client.sendNow("after shutdown") }
        #expect(try await serverEvents.next("server side closed") == .closed(.closedLocally))
        let late = WebSocketClientTransport(configuration: .init(connectTimeoutSeconds: 5, logger: .silent))
        let lateEvents = Inbox(late.events)
        await late.connect(to: server.target)
        guard case .closed(.failed) = try await lateEvents.next("refusal after stop") else {
            Issue.record("connecting after stop() should fail")
            return
        }
    }

    @Test func localhostListenerServesIPv4Loopback() async throws {
        let listener = try await WebSocketListener.start(configuration: .init(host: "localhost", logger: .silent))
        defer { Task { await listener.stop() } }
        let response = try await RawHTTPClient.send(port: listener.port, method: "GET", target: "/.json")
        #expect(response.status == 404)
    }

    @Test func listenerReportsBindFailure() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.listener.stop() } }
        await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketListener.start(
                configuration: WebSocketListenerConfiguration(port: server.listener.port, logger: .silent))
        }
    }
}
