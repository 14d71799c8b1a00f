import CanopyServer
import CanopyTree
import Testing

/// REST requests and websocket clients of the same server see each other's writes.
@Suite("REST and websocket clients together")
struct RESTWebSocketInteropTests {
    func push(_ a: String, _ b: String) -> String { #"{"t":"d","d":{"a":"\#(a)","b":\#(b)}}"# }
    func response(_ r: Int, _ b: String) -> String { #"{"t":"d","d":{"r":\#(r),"b":\#(b)}}"# }

    func handler(for fixture: LoopbackServerFixture, ticker: ManualTicker) -> RESTHandler {
        RESTHandler(server: fixture.server, configuration: .init(keepAliveTicks: ticker.factory))
    }

    @Test func websocketListenersSeeRESTWrites() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"rooms": {"r1": {"title": "hi"}}}"#)
        let rest = handler(for: fixture, ticker: ManualTicker())
        let client = try await fixture.client()
        await client.request(1, "q", #"{"p":"/rooms","h":""}"#)
        #expect(
            try await client.receive(2) == [
                push("d", #"{"p":"rooms","d":{"r1":{"title":"hi"}}}"#), response(1, #"{"s":"ok","d":{}}"#),
            ])
        _ = await rest.handle(
            method: "PUT", target: "/rooms/r1/title.json?ns=test", headers: [:], body: Array(#""yo""#.utf8))
        #expect(try await client.receive() == push("d", #"{"p":"rooms/r1/title","d":"yo"}"#))
        _ = await rest.handle(
            method: "PATCH", target: "/rooms.json?ns=test", headers: [:],
            body: Array(#"{"r1/title": "x", "r2": 1}"#.utf8))
        #expect(try await client.receive() == push("m", #"{"p":"rooms","d":{"r1/title":"x","r2":1}}"#))
        await client.close()
        await fixture.stop()
    }

    @Test func restStreamsSeeWebsocketWrites() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"rooms": {"r1": {"title": "hi"}}}"#)
        let rest = handler(for: fixture, ticker: ManualTicker())
        guard
            case .stream(let stream) = await rest.handle(
                method: "GET", target: "/rooms.json?ns=test", headers: ["Accept": "text/event-stream"])
        else {
            Issue.record("expected a stream")
            return
        }
        let events = EventReader(stream.events)
        #expect(try await events.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        let client = try await fixture.client()
        await client.request(1, "p", #"{"p":"/rooms/r1/title","d":"yo"}"#)
        #expect(try await client.receive() == response(1, #"{"s":"ok"}"#))
        #expect(try await events.next() == #"put {"path":"/r1/title","data":"yo"}"#)
        await client.request(2, "m", #"{"p":"/rooms/r1","d":{"title":"new","topic":"t"}}"#)
        #expect(try await client.receive() == response(2, #"{"s":"ok"}"#))
        #expect(try await events.next() == #"patch {"path":"/r1","data":{"title":"new","topic":"t"}}"#)
        await client.request(3, "p", #"{"p":"/rooms","d":{"r9":{".value":1,".priority":2}}}"#)
        #expect(try await client.receive() == response(3, #"{"s":"ok"}"#))
        #expect(try await events.next() == #"put {"path":"/","data":{"r9":1}}"#)
        events.close()
        await client.close()
        await fixture.stop()
    }
}
