import CanopyTree
import CanopyWire
import Testing

/// Both connection state machines driven over a loopback pair whose frame limit forces
/// splitting: the handshake, a large request and a large push survive framing.
@Suite(.timeLimit(.minutes(1))) struct ConnectionOverLoopbackTests {
    @Test func largeMessagesCrossTheLoopbackSplitIntoFrames() async throws {
        let frameLimit = 512
        let network = LoopbackNetwork(maxFrameSize: frameLimit)
        let listener = try network.listen(on: "127.0.0.1:9000")
        let client = network.makeTransport()
        var clientEvents = client.events.makeAsyncIterator()
        var clientMachine = ClientConnectionStateMachine(configuration: .init(maxFrameSize: frameLimit))
        var serverMachine = ServerConnectionStateMachine(configuration: .init(maxFrameSize: frameLimit))
        let hello = Handshake(timestamp: 1_700_000_000_000, host: "127.0.0.1:9000", sessionID: "s1")

        await client.connect(to: ConnectionTarget(host: "127.0.0.1:9000", namespace: "demo"))
        #expect(await clientEvents.next() == .opened)
        _ = clientMachine.transportOpened(at: .now)
        var connections = listener.connections.makeAsyncIterator()
        let server = try #require(await connections.next())
        var serverEvents = server.events.makeAsyncIterator()

        // Request queued before the hello, large enough to need many frames.
        let big = JSONValue.string(String(repeating: "héllo wörld 😀 ", count: 5_000))
        let put = ClientRequest.put(path: "docs/big", data: big, hash: nil)
        #expect(clientMachine.send(.request(number: 1, put), at: .now) == [])

        for case .sendFrames(let frames) in serverMachine.connectionOpened(hello: hello, at: .now) {
            for frame in frames { server.send(frame) }
        }

        // Client: read until the handshake completes, then send what it flushed.
        var clientFramesSent = 0
        handshake: while let event = await clientEvents.next() {
            guard case .frame(let frame) = event else {
                Issue.record("unexpected \(event)")
                return
            }
            for action in clientMachine.frameReceived(frame, at: .now) {
                if case .sendFrames(let frames) = action {
                    for frame in frames { await client.send(frame) }
                    clientFramesSent += frames.count
                }
                if case .handshakeCompleted(let received) = action { #expect(received == hello) }
            }
            if clientMachine.handshake != nil { break handshake }
        }
        #expect(clientFramesSent > 10)

        // Server: reassemble the put, then answer with a big push and the ok.
        var delivered: (Int64, ClientRequest)?
        while delivered == nil, let event = await serverEvents.next() {
            guard case .frame(let frame) = event else {
                Issue.record("unexpected \(event)")
                return
            }
            for case .deliverRequest(let number, let request) in serverMachine.frameReceived(frame, at: .now) {
                delivered = (number, request)
            }
        }
        #expect(delivered?.0 == 1)
        #expect(delivered?.1 == put)

        let push = WireMessage.push(.data(path: "docs/big", data: big, tag: nil))
        for message in [push, .response(number: 1, .ok)] {
            for case .sendFrames(let frames) in serverMachine.send(message, at: .now) {
                for frame in frames { server.send(frame) }
            }
        }

        var received: [ClientConnectionAction] = []
        while received.count < 2, let event = await clientEvents.next() {
            guard case .frame(let frame) = event else {
                Issue.record("unexpected \(event)")
                return
            }
            received += clientMachine.frameReceived(frame, at: .now)
        }
        #expect(
            received == [
                .deliverPush(.data(path: "docs/big", data: big, tag: nil)), .deliverResponse(number: 1, .ok),
            ])

        // The client closes; the server state machine learns it and ends once.
        #expect(clientMachine.close(at: .now) == [.closeTransport, .connectionEnded(.closedByClient)])
        await client.close()
        #expect(await serverEvents.next() == .closed(.closedByPeer))
        #expect(
            serverMachine.transportClosed(.closedByPeer, at: .now) == [
                .connectionEnded(.transportClosed(.closedByPeer))
            ])
        await listener.close()
    }
}
