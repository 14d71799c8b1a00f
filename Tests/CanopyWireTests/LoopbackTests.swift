import CanopyTree
import CanopyWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct LoopbackTests {
    /// Connects a client to `name` and returns both ends, with the client's `opened` consumed.
    func connect(_ network: LoopbackNetwork, _ listener: LoopbackListener, name: String) async throws -> (
        client: any ClientTransport, clientEvents: AsyncStream<ClientTransportEvent>.Iterator,
        server: any ServerConnection, serverEvents: AsyncStream<ServerConnectionEvent>.Iterator
    ) {
        let client = network.makeTransport()
        var clientEvents = client.events.makeAsyncIterator()
        await client.connect(to: ConnectionTarget(host: name, namespace: "demo", lastSessionID: "b7c2"))
        #expect(await clientEvents.next() == .opened)
        var connections = listener.connections.makeAsyncIterator()
        let server = try #require(await connections.next())
        return (client, clientEvents, server, server.events.makeAsyncIterator())
    }

    @Test func carriesFramesBothWaysInOrder() async throws {
        let network = LoopbackNetwork()
        let listener = try network.listen(on: "db")
        var (client, clientEvents, server, serverEvents) = try await connect(network, listener, name: "db")
        #expect(server.request.host == "db")
        #expect(server.request.namespace == "demo")
        #expect(server.request.lastSessionID == "b7c2")
        #expect(server.request.protocolVersion == "5")

        for i in 0..<200 {
            await client.send("c\(i)")
            server.send("s\(i)")
        }
        for i in 0..<200 {
            #expect(await serverEvents.next() == .frame("c\(i)"))
            #expect(await clientEvents.next() == .frame("s\(i)"))
        }
        server.sendPing()
        #expect(await serverEvents.next() == .pong)
        await listener.close()
    }

    @Test func clientCloseNotifiesTheServer() async throws {
        let network = LoopbackNetwork()
        let listener = try network.listen(on: "db")
        var (client, clientEvents, server, serverEvents) = try await connect(network, listener, name: "db")
        await client.send("last")
        await client.close()
        #expect(await serverEvents.next() == .frame("last"))
        #expect(await serverEvents.next() == .closed(.closedByPeer))
        #expect(await serverEvents.next() == nil)
        #expect(await clientEvents.next() == .closed(.closedLocally))
        #expect(await clientEvents.next() == nil)
        // Sends after close go nowhere and do not crash.
        server.send("late")
        await client.send("late")
        await listener.close()
    }

    @Test func serverCloseNotifiesTheClient() async throws {
        let network = LoopbackNetwork()
        let listener = try network.listen(on: "db")
        var (_, clientEvents, server, serverEvents) = try await connect(network, listener, name: "db")
        server.close()
        #expect(await clientEvents.next() == .closed(.closedByPeer))
        #expect(await clientEvents.next() == nil)
        #expect(await serverEvents.next() == .closed(.closedLocally))
        await listener.close()
    }

    @Test func connectingToAnUnknownNameFails() async throws {
        let network = LoopbackNetwork()
        let client = network.makeTransport()
        var events = client.events.makeAsyncIterator()
        await client.connect(to: ConnectionTarget(host: "nowhere"))
        guard case .closed(.failed(let reason))? = await events.next() else {
            Issue.record("expected a failed close")
            return
        }
        #expect(reason.contains("nowhere"))
        #expect(await events.next() == nil)
    }

    @Test func listenerNamesAreUniqueUntilClosed() async throws {
        let network = LoopbackNetwork()
        let listener = try network.listen(on: "db")
        #expect(throws: LoopbackError.self) { try network.listen(on: "db") }
        await listener.close()
        var connections = listener.connections.makeAsyncIterator()
        #expect(await connections.next() == nil)
        let again = try network.listen(on: "db")
        await again.close()
    }

    @Test func oversizedFramesFailTheConnection() async throws {
        let network = LoopbackNetwork(maxFrameSize: 10)
        let listener = try network.listen(on: "db")
        var (client, clientEvents, _, serverEvents) = try await connect(network, listener, name: "db")
        await client.send("0123456789")
        #expect(await serverEvents.next() == .frame("0123456789"))
        await client.send("0123456789A")
        guard case .closed(.failed)? = await serverEvents.next(), case .closed(.failed)? = await clientEvents.next()
        else {
            Issue.record("expected both ends to fail")
            return
        }
        await listener.close()
    }
}
