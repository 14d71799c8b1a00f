import CanopyTree
import CanopyWire
import Testing

@Suite struct ServerConnectionStateMachineTests {
    let t0 = ContinuousClock.now
    let handshake = Handshake(timestamp: 1_700_000_000_000, host: "127.0.0.1:9000", sessionID: "3fa9c0d1")

    func opened(_ configuration: ServerConnectionStateMachine.Configuration = .init()) -> ServerConnectionStateMachine {
        var machine = ServerConnectionStateMachine(configuration: configuration)
        _ = machine.connectionOpened(hello: handshake, at: t0)
        return machine
    }

    @Test func sendsTheHelloAtOnce() {
        var machine = ServerConnectionStateMachine()
        #expect(machine.state == .idle)
        #expect(machine.send(.response(number: 1, .ok), at: t0) == [])
        #expect(
            machine.connectionOpened(hello: handshake, at: t0) == [
                .sendFrames([
                    #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1:9000","s":"3fa9c0d1"}}}"#
                ]),
                .scheduleTimer(.probe, at: t0 + .seconds(30)),
                .scheduleTimer(.idle, at: t0 + .seconds(120)),
            ])
        #expect(machine.state == .open(handshake))
    }

    @Test func answersPingsAndIgnoresKeepalives() {
        var machine = opened()
        #expect(
            machine.frameReceived(#"{"t":"c","d":{"t":"p","d":{}}}"#, at: t0) == [
                .sendFrames([#"{"t":"c","d":{"t":"o","d":{}}}"#])
            ])
        #expect(machine.frameReceived("0", at: t0) == [])
        #expect(machine.frameReceived(#"{"t":"c","d":{"t":"n","d":{}}}"#, at: t0) == [])
    }

    @Test func deliversRequestsInOrder() {
        var machine = opened()
        var actions: [ServerConnectionAction] = []
        actions += machine.frameReceived(
            #"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.admin_node.12-0-0":1}}}}"#, at: t0)
        actions += machine.frameReceived(#"{"t":"d","d":{"r":2,"a":"gauth","b":{"cred":"owner"}}}"#, at: t0)
        actions += machine.frameReceived(#"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/rooms/r1","h":""}}}"#, at: t0)
        #expect(
            actions == [
                .deliverRequest(
                    number: 1, .stats(counters: .object([JSONMember("sdk.admin_node.12-0-0", .int(1))]))),
                .deliverRequest(number: 2, .googleAuth(AuthCredential(credential: "owner"))),
                .deliverRequest(number: 3, .listen(ListenRequest(path: "rooms/r1"))),
            ])
    }

    @Test func reassemblesChunkedRequests() throws {
        var machine = opened()
        let message = WireMessage.request(
            number: 4, .put(path: "doc", data: .string(String(repeating: "é", count: 40_000)), hash: nil))
        var actions: [ServerConnectionAction] = []
        for frame in FrameSplitter().frames(for: message) { actions += machine.frameReceived(frame, at: t0) }
        guard case .request(let number, let request) = message else { return }
        #expect(actions == [.deliverRequest(number: number, request)])
    }

    @Test func rejectsUnknownActionsAndMalformedBodiesWithoutClosing() {
        var machine = opened()
        #expect(
            machine.frameReceived(#"{"t":"d","d":{"r":5,"a":"zap","b":{}}}"#, at: t0)
                == [.rejectRequest(number: 5, .failure(.failure, "Unknown action \"zap\""))])
        let actions = machine.frameReceived(#"{"t":"d","d":{"r":6,"a":"p","b":{"d":1}}}"#, at: t0)
        guard case .rejectRequest(6, let response)? = actions.first, actions.count == 1 else {
            Issue.record("expected a rejection, got \(actions)")
            return
        }
        #expect(response.status == .invalidData)
        #expect(response.reason?.contains("\"p\"") == true)
        // Unanswerable garbage is reported and the connection stays open.
        guard case .ignoredMessage(let error)? = machine.frameReceived("{oops", at: t0).first else {
            Issue.record("expected an ignored message")
            return
        }
        #expect(error.kind == .invalidJSON)
        guard
            case .ignoredMessage(let push)? = machine.frameReceived(
                #"{"t":"d","d":{"a":"d","b":{"p":"a","d":1}}}"#, at: t0
            ).first
        else {
            Issue.record("expected an ignored message")
            return
        }
        #expect(push.kind == .unexpectedMessage)
        #expect(machine.state == .open(handshake))
        #expect(
            machine.frameReceived(#"{"t":"d","d":{"r":7,"a":"unauth","b":{}}}"#, at: t0) == [
                .deliverRequest(number: 7, .unauth)
            ])
    }

    @Test func splitsLargePushes() throws {
        var machine = opened(.init(maxFrameSize: 1000))
        let push = WireMessage.push(.data(path: "doc", data: .string(String(repeating: "😀", count: 5000)), tag: 2))
        guard case .sendFrames(let frames)? = machine.send(push, at: t0).first else {
            Issue.record("expected frames")
            return
        }
        #expect(Int(frames[0]) == frames.count - 1)
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= 1000 })
        #expect(!frames.contains("0"))
        #expect(try WireMessage(text: frames.dropFirst().joined()) == push)
    }

    @Test func probesAndTimesOutIdleConnections() {
        var machine = opened()
        // A client frame at +20 postpones the probe.
        _ = machine.frameReceived("0", at: t0 + .seconds(20))
        #expect(machine.timerFired(.probe, at: t0 + .seconds(30)) == [.scheduleTimer(.probe, at: t0 + .seconds(50))])
        #expect(
            machine.timerFired(.probe, at: t0 + .seconds(50)) == [
                .sendTransportPing, .scheduleTimer(.probe, at: t0 + .seconds(80)),
            ])
        // A pong at +55 keeps it alive past +120.
        #expect(machine.pongReceived(at: t0 + .seconds(55)) == [])
        #expect(machine.timerFired(.idle, at: t0 + .seconds(120)) == [.scheduleTimer(.idle, at: t0 + .seconds(175))])
        // Silence until +175: dead.
        #expect(machine.timerFired(.idle, at: t0 + .seconds(175)) == [.closeTransport, .connectionEnded(.idleTimeout)])
        #expect(machine.state == .closed(.idleTimeout))
        #expect(machine.timerFired(.probe, at: t0 + .seconds(200)) == [])
        #expect(machine.send(.push(.securityDebug(message: "x")), at: t0 + .seconds(200)) == [])
        #expect(machine.transportClosed(.closedLocally, at: t0 + .seconds(200)) == [])
    }

    @Test func closeAndTransportLossEndOnce() {
        var closing = opened()
        #expect(closing.close(at: t0) == [.closeTransport, .connectionEnded(.closedByServer)])
        #expect(closing.frameReceived(#"{"t":"d","d":{"r":1,"a":"unauth","b":{}}}"#, at: t0) == [])

        var lost = opened()
        #expect(lost.transportClosed(.closedByPeer, at: t0) == [.connectionEnded(.transportClosed(.closedByPeer))])
        #expect(lost.close(at: t0) == [])
    }
}
