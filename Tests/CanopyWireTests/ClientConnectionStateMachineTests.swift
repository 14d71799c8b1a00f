import CanopyTree
import CanopyWire
import Testing

@Suite struct ClientConnectionStateMachineTests {
    let t0 = ContinuousClock.now
    let hello = #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1:9000","s":"3fa9c0d1"}}}"#
    let handshake = Handshake(timestamp: 1_700_000_000_000, host: "127.0.0.1:9000", sessionID: "3fa9c0d1")

    func connected(_ configuration: ClientConnectionStateMachine.Configuration = .init())
        -> ClientConnectionStateMachine
    {
        var machine = ClientConnectionStateMachine(configuration: configuration)
        _ = machine.transportOpened(at: t0)
        _ = machine.frameReceived(hello, at: t0)
        return machine
    }

    @Test func handshakeFlushesQueuedRequests() {
        var machine = ClientConnectionStateMachine()
        #expect(machine.state == .connecting)
        #expect(machine.transportOpened(at: t0) == [.scheduleTimer(.handshake, at: t0 + .seconds(30))])
        #expect(machine.state == .awaitingHello)
        // Nothing is sent before the hello.
        let stats = WireMessage.request(number: 1, .stats(counters: .object([JSONMember("sdk.swift", .int(1))])))
        let listen = WireMessage.request(number: 2, .listen(ListenRequest(path: "rooms/r1")))
        #expect(machine.send(stats, at: t0) == [])
        #expect(machine.send(listen, at: t0) == [])
        let t1 = t0 + .seconds(1)
        #expect(
            machine.frameReceived(hello, at: t1) == [
                .handshakeCompleted(handshake),
                .sendFrames([
                    #"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.swift":1}}}}"#,
                    #"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/rooms/r1","h":""}}}"#,
                ]),
                .scheduleTimer(.keepalive, at: t1 + .seconds(45)),
            ])
        #expect(machine.state == .connected(handshake))
        #expect(machine.handshake == handshake)
        // A late handshake timer does nothing.
        #expect(machine.timerFired(.handshake, at: t0 + .seconds(30)) == [])
    }

    @Test func handshakeTimeout() {
        var machine = ClientConnectionStateMachine()
        _ = machine.transportOpened(at: t0)
        #expect(
            machine.timerFired(.handshake, at: t0 + .seconds(30)) == [
                .closeTransport, .connectionEnded(.handshakeTimedOut),
            ])
        #expect(machine.frameReceived(hello, at: t0 + .seconds(31)) == [])
        #expect(machine.transportClosed(.closedLocally, at: t0 + .seconds(31)) == [])
    }

    @Test func keepaliveAfterFortyFiveQuietSeconds() {
        var machine = connected()
        // Quiet for 45 s: send "0" and re-arm.
        #expect(
            machine.timerFired(.keepalive, at: t0 + .seconds(45)) == [
                .sendFrames(["0"]), .scheduleTimer(.keepalive, at: t0 + .seconds(90)),
            ])
        // Traffic (a push at +60) postpones the next keepalive to +105.
        _ = machine.frameReceived(#"{"t":"d","d":{"a":"d","b":{"p":"a","d":1}}}"#, at: t0 + .seconds(60))
        #expect(
            machine.timerFired(.keepalive, at: t0 + .seconds(90)) == [
                .scheduleTimer(.keepalive, at: t0 + .seconds(105))
            ])
        // Sending also counts as traffic.
        _ = machine.send(.request(number: 3, .unauth), at: t0 + .seconds(100))
        #expect(
            machine.timerFired(.keepalive, at: t0 + .seconds(105)) == [
                .scheduleTimer(.keepalive, at: t0 + .seconds(145))
            ])
        #expect(
            machine.timerFired(.keepalive, at: t0 + .seconds(146)) == [
                .sendFrames(["0"]), .scheduleTimer(.keepalive, at: t0 + .seconds(191)),
            ])
    }

    @Test func deliversResponsesPushesAndServerErrors() {
        var machine = connected()
        #expect(
            machine.frameReceived(#"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{}}}}"#, at: t0)
                == [.deliverResponse(number: 3, ServerResponse(status: .ok, data: .object([])))])
        #expect(
            machine.frameReceived(#"{"t":"d","d":{"a":"d","b":{"p":"counter","d":12}}}"#, at: t0)
                == [.deliverPush(.data(path: "counter", data: .int(12), tag: nil))])
        #expect(machine.frameReceived(#"{"t":"c","d":{"t":"e","d":"hmm"}}"#, at: t0) == [.logServerError("hmm")])
        #expect(machine.frameReceived(#"{"t":"c","d":{"t":"o","d":{}}}"#, at: t0) == [])
        #expect(machine.frameReceived(#"{"t":"c","d":{"t":"x","d":{}}}"#, at: t0) == [])
    }

    @Test func reassemblesChunkedServerMessages() {
        var machine = ClientConnectionStateMachine()
        _ = machine.transportOpened(at: t0)
        let frames = FrameSplitter(maxFrameSize: 7).frames(for: hello)
        #expect(frames.count > 3)
        var actions: [ClientConnectionAction] = []
        for frame in frames { actions += machine.frameReceived(frame, at: t0) }
        #expect(actions.first == .handshakeCompleted(handshake))
    }

    @Test func splitsLargeOutgoingMessages() throws {
        var machine = connected(.init(maxFrameSize: 100))
        let data = JSONValue.string(String(repeating: "x", count: 1000))
        let message = WireMessage.request(number: 9, .put(path: "big", data: data, hash: nil))
        let actions = machine.send(message, at: t0)
        guard case .sendFrames(let frames)? = actions.first else {
            Issue.record("expected frames, got \(actions)")
            return
        }
        #expect(frames.count > 10)
        #expect(Int(frames[0]) == frames.count - 1)
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= 100 })
        #expect(try WireMessage(text: frames.dropFirst().joined()) == message)
    }

    @Test(arguments: [true, false])
    func redirect(beforeHello: Bool) {
        var machine = ClientConnectionStateMachine()
        _ = machine.transportOpened(at: t0)
        if !beforeHello { _ = machine.frameReceived(hello, at: t0) }
        #expect(
            machine.frameReceived(#"{"t":"c","d":{"t":"r","d":"db2.example.com"}}"#, at: t0)
                == [.closeTransport, .connectionEnded(.redirected(host: "db2.example.com"))])
        #expect(machine.state == .closed(.redirected(host: "db2.example.com")))
        #expect(machine.transportClosed(.closedLocally, at: t0) == [])
    }

    @Test func shutdownStopsEverything() {
        var machine = connected()
        #expect(
            machine.frameReceived(#"{"t":"c","d":{"t":"s","d":"namespace disabled"}}"#, at: t0)
                == [.closeTransport, .connectionEnded(.shutdown(reason: "namespace disabled"))])
        #expect(machine.send(.request(number: 1, .unauth), at: t0) == [])
        #expect(machine.timerFired(.keepalive, at: t0 + .seconds(100)) == [])
        #expect(machine.frameReceived(#"{"t":"d","d":{"r":3,"b":{"s":"ok"}}}"#, at: t0) == [])
    }

    @Test func protocolErrors() {
        var garbage = connected()
        let actions = garbage.frameReceived("not json", at: t0)
        #expect(actions.first == .closeTransport)
        guard case .connectionEnded(.protocolError(let error))? = actions.last else {
            Issue.record("expected a protocol error, got \(actions)")
            return
        }
        #expect(error.kind == .invalidJSON)

        var early = ClientConnectionStateMachine()
        _ = early.transportOpened(at: t0)
        let earlyActions = early.frameReceived(#"{"t":"d","d":{"a":"d","b":{"p":"a","d":1}}}"#, at: t0)
        guard case .connectionEnded(.protocolError(let earlyError))? = earlyActions.last else {
            Issue.record("expected a protocol error, got \(earlyActions)")
            return
        }
        #expect(earlyError.kind == .unexpectedMessage)

        var tooMany = connected()
        guard case .connectionEnded(.protocolError(let countError))? = tooMany.frameReceived("99999", at: t0).last
        else {
            Issue.record("expected a protocol error for a 99999-chunk count")
            return
        }
        #expect(countError.kind == .malformedFrame)
    }

    @Test func closeAndTransportLossEndOnce() {
        var closing = connected()
        #expect(closing.close(at: t0) == [.closeTransport, .connectionEnded(.closedByClient)])
        #expect(closing.close(at: t0) == [])
        #expect(closing.transportClosed(.closedLocally, at: t0) == [])

        var lost = connected()
        #expect(lost.transportClosed(.closedByPeer, at: t0) == [.connectionEnded(.transportClosed(.closedByPeer))])
        #expect(lost.close(at: t0) == [])
    }
}
