import CanopyServer
import CanopyTree
import CanopyWire
import Testing

/// Protocol-level tests: scripted clients send raw frames over the loopback transport and
/// check the server's exact responses and pushes.
@Suite("Server protocol over loopback")
struct ServerProtocolTests {
    /// The response to request `r` with body `b`.
    func response(_ r: Int, _ b: String) -> String { #"{"t":"d","d":{"r":\#(r),"b":\#(b)}}"# }
    /// A data push `a` with body `b`.
    func push(_ a: String, _ b: String) -> String { #"{"t":"d","d":{"a":"\#(a)","b":\#(b)}}"# }

    /// The status and payload of a response message.
    func status(of message: String) throws -> (status: String?, data: JSONValue?) {
        let body = try JSONParser.parse(message)["d"]?["b"]
        return (body?["s"]?.stringValue, body?["d"])
    }

    @Test func handshakeComesFirstWithTimeVersionHostAndSession() async throws {
        let fixture = try LoopbackServerFixture()
        let client = await ScriptedClient(network: fixture.network)
        let hello = try await client.receiveHello()
        #expect(hello["ts"] == .int(LoopbackServerFixture.now))
        #expect(hello["v"] == .string("5"))
        #expect(hello["h"] == .string("server"))
        let session = try #require(hello["s"]?.stringValue)
        #expect(session.count == 16)
        let other = await ScriptedClient(network: fixture.network)
        #expect(try await other.receiveHello()["s"]?.stringValue != session)
        await client.close()
        await other.close()
        await fixture.stop()
    }

    @Test func workedSessionOfTheProtocolSpec() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"rooms":{"r1":{"title":"hi"}},"counter":12}"#)
        let client = try await fixture.client()
        await client.request(1, "s", #"{"c":{"sdk.admin_node.12-0-0":1}}"#)
        await client.request(2, "gauth", #"{"cred":"owner"}"#)
        await client.request(3, "q", #"{"p":"/rooms/r1","h":""}"#)
        #expect(
            try await client.receive(4) == [
                response(1, #"{"s":"ok"}"#),
                response(2, #"{"s":"ok","d":{"auth":null,"expires":null}}"#),
                push("d", #"{"p":"rooms/r1","d":{"title":"hi"}}"#),
                response(3, #"{"s":"ok","d":{}}"#),
            ])
        await client.request(4, "p", #"{"p":"/rooms/r1/title","d":"yo"}"#)
        #expect(
            try await client.receive(2) == [
                push("d", #"{"p":"rooms/r1/title","d":"yo"}"#),
                response(4, #"{"s":"ok"}"#),
            ])
        await client.request(5, "q", #"{"p":"/counter","h":"+r5aI9HvKKagELki8SYKBk0q7D4="}"#)
        await client.request(6, "p", #"{"p":"/counter","d":11,"h":"+r5aI9HvKKagELki8SYKBk0q7D4="}"#)
        #expect(
            try await client.receive(3) == [
                push("d", #"{"p":"counter","d":12}"#),
                response(5, #"{"s":"ok","d":{}}"#),
                response(6, #"{"s":"datastale","d":"hash mismatch"}"#),
            ])
        await client.request(7, "p", #"{"p":"/counter","d":13,"h":"faLmDyyRLmn84BABqn7M8fPeH54="}"#)
        #expect(
            try await client.receive(2) == [
                push("d", #"{"p":"counter","d":13}"#),
                response(7, #"{"s":"ok"}"#),
            ])
        #expect(try await fixture.value(at: "/counter") == "13")
        await client.close()
        await fixture.stop()
    }

    @Test func everyActionIsAnsweredOnceAndStatusesAreStrings() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"a":{"b":1}}"#)
        let client = try await fixture.client()
        await client.request(1, "auth", #"{"cred":"token","authvar":{"uid":"u"}}"#)
        await client.request(2, "unauth", "{}")
        await client.request(3, "appcheck", #"{"token":"x"}"#)
        await client.request(4, "unappeck", "{}")
        await client.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
        await client.send("0")
        await client.request(5, "g", #"{"p":"/a","q":{}}"#)
        await client.request(6, "g", #"{"p":"/missing","q":{}}"#)
        await client.request(7, "n", #"{"p":"/never/listened"}"#)
        await client.request(8, "m", #"{"p":"/a","d":{"c":2}}"#)
        await client.request(9, "oc", #"{"p":"/a","d":null}"#)
        #expect(
            try await client.receive(10) == [
                response(1, #"{"s":"ok","d":{"auth":null,"expires":null}}"#),
                response(2, #"{"s":"ok"}"#),
                response(3, #"{"s":"ok"}"#),
                response(4, #"{"s":"ok"}"#),
                #"{"t":"c","d":{"t":"o","d":{}}}"#,
                response(5, #"{"s":"ok","d":{"b":1}}"#),
                response(6, #"{"s":"ok","d":null}"#),
                response(7, #"{"s":"ok"}"#),
                response(8, #"{"s":"ok"}"#),
                response(9, #"{"s":"ok"}"#),
            ])

        // Refusals: unknown action, .info, invalid data, an undecodable body — each answered
        // with a string reason, and the connection keeps serving.
        await client.request(10, "zz", "{}")
        await client.request(11, "p", #"{"p":"/.info/connected","d":true}"#)
        await client.request(12, "q", #"{"p":"/.info/serverTimeOffset","h":""}"#)
        await client.request(13, "p", #"{"p":"/a","d":{"b$":1}}"#)
        await client.request(14, "p", #"{"p":"/a"}"#)
        await client.request(15, "m", #"{"p":"/","d":{"a":1,"a/b":2}}"#)
        await client.request(16, "q", #"{"p":"/s","q":{"l":-3,"vf":"x"},"t":1,"h":""}"#)
        let expected = [
            "failure", "permission_denied", "permission_denied", "invalid_data", "invalid_data",
            "invalid_data", "invalid_data",
        ]
        for (offset, wanted) in expected.enumerated() {
            let message = try await client.receive()
            let (status, data) = try status(of: message)
            #expect(status == wanted, "request \(offset + 10): \(message)")
            #expect(data?.stringValue != nil, "request \(offset + 10): \(message)")
            #expect(try JSONParser.parse(message)["d"]?["r"] == .int(Int64(offset + 10)))
        }
        await client.request(17, "g", #"{"p":"/a","q":{}}"#)
        #expect(try await client.receive() == response(17, #"{"s":"ok","d":{"b":1,"c":2}}"#))
        await client.close()
        await fixture.stop()
    }

    @Test func limitToLastWindowOverTheWire() async throws {
        let fixture = try LoopbackServerFixture(
            seed: #"{"scores":{"amy":{"points":10},"bob":{"points":40},"eve":{"points":90}}}"#)
        let watcher = try await fixture.client()
        let writer = try await fixture.client()
        await watcher.request(8, "q", #"{"p":"/scores","q":{"l":2,"vf":"r","i":"points"},"t":1,"h":""}"#)
        #expect(
            try await watcher.receive(2) == [
                push("d", #"{"p":"scores","d":{"bob":{"points":40},"eve":{"points":90}},"t":1}"#),
                response(8, #"{"s":"ok","d":{}}"#),
            ])
        // Inserting a higher score moves bob out of the window.
        await writer.request(1, "p", #"{"p":"/scores/zed","d":{"points":95}}"#)
        #expect(try await writer.receive() == response(1, #"{"s":"ok"}"#))
        #expect(
            try await watcher.receive()
                == push("d", #"{"p":"scores","d":{"eve":{"points":90},"zed":{"points":95}},"t":1}"#))
        // Lowering eve moves her out and bob back in; the watcher's own write is pushed before its ok.
        await watcher.request(9, "p", #"{"p":"/scores/eve/points","d":1}"#)
        #expect(
            try await watcher.receive(2) == [
                push("d", #"{"p":"scores","d":{"bob":{"points":40},"zed":{"points":95}},"t":1}"#),
                response(9, #"{"s":"ok"}"#),
            ])
        // Removing a child of the window refills it.
        await writer.request(2, "m", #"{"p":"/scores","d":{"zed":null,"amy/points":50}}"#)
        #expect(try await writer.receive() == response(2, #"{"s":"ok"}"#))
        #expect(
            try await watcher.receive()
                == push("d", #"{"p":"scores","d":{"amy":{"points":50},"bob":{"points":40}},"t":1}"#))
        // After unlisten nothing more arrives: the next message is the answer to a get.
        await watcher.request(10, "n", #"{"p":"/scores","q":{"l":2,"vf":"r","i":"points"},"t":1}"#)
        #expect(try await watcher.receive() == response(10, #"{"s":"ok"}"#))
        await writer.request(3, "p", #"{"p":"/scores/new","d":{"points":99}}"#)
        #expect(try await writer.receive() == response(3, #"{"s":"ok"}"#))
        await watcher.request(11, "g", #"{"p":"/scores","q":{"l":1,"vf":"r","i":"points"}}"#)
        #expect(try await watcher.receive() == response(11, #"{"s":"ok","d":{"new":{"points":99}}}"#))
        await watcher.close()
        await writer.close()
        await fixture.stop()
    }

    @Test func onDisconnectRunsWhenTheConnectionClosesAndCancelDropsIt() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"presence":{"ann":true},"rooms":{"r1":{"n":1}}}"#)
        let watcher = try await fixture.client()
        await watcher.request(1, "q", #"{"p":"/","h":""}"#)
        _ = try await watcher.receive(2)

        let leaving = try await fixture.client()
        await leaving.request(1, "o", #"{"p":"/presence/ann","d":{".sv":"timestamp"}}"#)
        await leaving.request(2, "om", #"{"p":"/rooms/r1","d":{"n":{".sv":{"increment":2}},"left":"ann"}}"#)
        await leaving.request(3, "o", #"{"p":"/cancelled","d":"never"}"#)
        await leaving.request(4, "oc", #"{"p":"/cancelled","d":null}"#)
        #expect(try await leaving.receive(4) == (1...4).map { response($0, #"{"s":"ok"}"#) })
        await leaving.close()
        #expect(
            try await watcher.receive(3) == [
                push("d", #"{"p":"presence/ann","d":1700000000000}"#),
                push("d", #"{"p":"rooms/r1/n","d":3}"#),
                push("d", #"{"p":"rooms/r1/left","d":"ann"}"#),
            ])
        #expect(try await fixture.value(at: "/cancelled") == "null")
        await watcher.close()
        await fixture.stop()
    }

    @Test func idleConnectionsAreClosedAndTheirOnDisconnectRuns() async throws {
        let connection = ServerConnectionStateMachine.Configuration(
            probeInterval: .seconds(3600), idleTimeout: .milliseconds(200))
        let fixture = try LoopbackServerFixture(connection: connection)
        // On a loaded machine the test itself may stall past the short idle timeout before
        // its request goes out; such an attempt is closed early and is simply tried again.
        var registered = false
        for _ in 0..<20 where !registered {
            let quiet = try await fixture.client()
            await quiet.request(1, "o", #"{"p":"/gone","d":true}"#)
            guard let reply = try await quiet.receiveUnlessClosed() else { continue }
            #expect(reply == response(1, #"{"s":"ok"}"#))
            registered = true
            // The client says nothing more (and the loopback never gets a ping to answer): dropped.
            _ = try await quiet.receiveClose()
        }
        #expect(registered, "no attempt registered its onDisconnect before the idle timeout")
        #expect(try await fixture.value(at: "/gone") == "true")
        await fixture.stop()
    }

    @Test func reconnectingWithLastSessionClosesTheOldSession() async throws {
        let fixture = try LoopbackServerFixture()
        let old = await ScriptedClient(network: fixture.network)
        let session = try #require(try await old.receiveHello()["s"]?.stringValue)
        await old.request(1, "o", #"{"p":"/status","d":"offline"}"#)
        #expect(try await old.receive() == response(1, #"{"s":"ok"}"#))
        let new = await ScriptedClient(network: fixture.network, lastSessionID: session)
        _ = try await new.receiveHello()
        _ = try await old.receiveClose()
        await new.request(1, "g", #"{"p":"/status","q":{}}"#)
        #expect(try await new.receive() == response(1, #"{"s":"ok","d":"offline"}"#))
        await new.close()
        await fixture.stop()
    }

    @Test func largeMessagesAreReassembledAndSplitBothWays() async throws {
        let fixture = try LoopbackServerFixture(maxFrameSize: 16384)
        let watcher = try await fixture.client()
        await watcher.request(1, "q", #"{"p":"/big","h":""}"#)
        _ = try await watcher.receive(2)
        let writer = try await fixture.client()
        // 40 000 characters with multi-byte scalars: the client splits it into 3 chunks.
        let text = String(repeating: "ab✓é", count: 10_000)
        let request = #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/big","d":"\#(text)"}}}"#
        let frames = FrameSplitter().frames(for: request)
        #expect(frames.count == 4)
        #expect(frames.first == "3")
        for frame in frames { await writer.send(frame) }
        #expect(try await writer.receive() == response(1, #"{"s":"ok"}"#))
        // The push to the watcher arrives split: a count frame, then chunks of ≤ 16384.
        let count = try await watcher.receiveFrame()
        let chunkCount = try #require(Int(count))
        #expect(chunkCount == 3)
        var chunks: [String] = []
        for _ in 0..<chunkCount { chunks.append(try await watcher.receiveFrame()) }
        #expect(chunks.allSatisfy { $0.utf16.count <= 16384 })
        #expect(chunks.joined() == push("d", #"{"p":"big","d":"\#(text)"}"#))
        await watcher.close()
        await writer.close()
        await fixture.stop()
    }

    @Test func malformedFramesCloseThatConnectionWithAnErrorAndOthersKeepWorking() async throws {
        let fixture = try LoopbackServerFixture()
        let healthy = try await fixture.client()
        await healthy.request(1, "q", #"{"p":"/x","h":""}"#)
        _ = try await healthy.receive(2)

        let broken = try await fixture.client()
        await broken.request(1, "o", #"{"p":"/x","d":"broken left"}"#)
        #expect(try await broken.receive() == response(1, #"{"s":"ok"}"#))
        await broken.send("{not json")
        let error = try JSONParser.parse(try await broken.receive())
        #expect(error["t"] == .string("c"))
        #expect(error["d"]?["t"] == .string("e"))
        #expect(error["d"]?["d"]?.stringValue?.isEmpty == false)
        _ = try await broken.receiveClose()
        // The broken connection's onDisconnect ran; the healthy one is still served.
        #expect(try await healthy.receive() == push("d", #"{"p":"x","d":"broken left"}"#))
        await healthy.request(2, "p", #"{"p":"/x","d":1}"#)
        #expect(try await healthy.receive(2) == [push("d", #"{"p":"x","d":1}"#), response(2, #"{"s":"ok"}"#)])

        // A response is not something a client may send either.
        let confused = try await fixture.client()
        await confused.send(#"{"t":"d","d":{"r":1,"b":{"s":"ok"}}}"#)
        #expect(try JSONParser.parse(try await confused.receive())["d"]?["t"] == .string("e"))
        _ = try await confused.receiveClose()
        await healthy.close()
        await fixture.stop()
    }

    @Test func namespacesAreSeparate() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"a":1}"#)
        let inTest = try await fixture.client(namespace: "test")
        let inOther = try await fixture.client(namespace: "other")
        await inOther.request(1, "g", #"{"p":"/a","q":{}}"#)
        #expect(try await inOther.receive() == response(1, #"{"s":"ok","d":null}"#))
        await inTest.request(1, "g", #"{"p":"/a","q":{}}"#)
        #expect(try await inTest.receive() == response(1, #"{"s":"ok","d":1}"#))
        #expect(
            fixture.server.namespaceName(for: ConnectionRequest(host: "db.example.com", target: "/.ws?v=5")) == "db")
        #expect(
            fixture.server.namespaceName(for: ConnectionRequest(host: "127.0.0.1:9000", target: "/.ws?v=5"))
                == "default")
        await inTest.close()
        await inOther.close()
        await fixture.stop()
    }
}
