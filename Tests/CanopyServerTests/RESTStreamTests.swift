import CanopyServer
import CanopyTree
import Synchronization
import Testing

@Suite("REST event streams")
struct RESTStreamTests {
    static let seed = #"{"rooms": {"r1": {"title": "hi"}}, "list": ["a", "b"]}"#

    @Test func streamStartsWithAPutOfTheWholeValueThenFollowsWrites() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let events = try await fixture.open("/rooms.json")
        #expect(try await events.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        _ = try await fixture.send("PUT", "/rooms/r1/title.json", body: #""yo""#)
        #expect(try await events.next() == #"put {"path":"/r1/title","data":"yo"}"#)
        _ = try await fixture.send("PATCH", "/rooms/r1.json", body: #"{"title": "new", "topic": null, "n/x": 1}"#)
        #expect(try await events.next() == #"patch {"path":"/r1","data":{"title":"new","topic":null,"n/x":1}}"#)
        _ = try await fixture.send("PUT", "/rooms/r2.json", body: #"{"title": "second"}"#)
        #expect(try await events.next() == #"put {"path":"/r2","data":{"title":"second"}}"#)
        _ = try await fixture.send("DELETE", "/rooms/r1.json")
        #expect(try await events.next() == #"put {"path":"/r1","data":null}"#)
        _ = try await fixture.send("PUT", "/elsewhere.json", body: "1")
        _ = try await fixture.send("PUT", "/.json", body: #"{"rooms": {"r3": true}}"#)
        #expect(try await events.next() == #"put {"path":"/","data":{"r3":true}}"#)
        events.close()
        try await fixture.waitForStreamsToClose()
    }

    @Test func anEmptyLocationStartsWithNullAndPostsArriveAsPuts() async throws {
        let fixture = try RESTFixture()
        let events = try await fixture.open("/messages.json")
        #expect(try await events.next() == #"put {"path":"/","data":null}"#)
        let posted = try await fixture.send("POST", "/messages.json", body: #"{"text": "hello"}"#)
        let name = try #require(try JSONParser.parse(posted.bodyText)["name"]?.stringValue)
        #expect(try await events.next() == #"put {"path":"/\#(name)","data":{"text":"hello"}}"#)
        events.close()
        try await fixture.waitForStreamsToClose()
    }

    @Test func plainFormUsesArraysAndExportFormKeepsPriorities() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let plain = try await fixture.open("/list.json")
        let export = try await fixture.open("/list.json?format=export")
        #expect(try await plain.next() == #"put {"path":"/","data":["a","b"]}"#)
        #expect(try await export.next() == #"put {"path":"/","data":{"0":"a","1":"b"}}"#)
        _ = try await fixture.send("PUT", "/list/2.json", body: #"{".value": "c", ".priority": 1}"#)
        #expect(try await plain.next() == #"put {"path":"/2","data":"c"}"#)
        #expect(try await export.next() == #"put {"path":"/2","data":{".value":"c",".priority":1}}"#)
        plain.close()
        export.close()
        try await fixture.waitForStreamsToClose()
    }

    @Test func queryStreamsFollowTheirWindow() async throws {
        let fixture = try RESTFixture(seed: #"{"scores": {"a": 5, "b": 1, "c": 9}}"#)
        let events = try await fixture.open(#"/scores.json?orderBy="$value"&limitToLast=2"#)
        #expect(try await events.next() == #"put {"path":"/","data":{"a":5,"c":9}}"#)
        _ = try await fixture.send("PUT", "/scores/b.json", body: "0")
        _ = try await fixture.send("PUT", "/scores/d.json", body: "7")
        #expect(try await events.next() == #"put {"path":"/","data":{"c":9,"d":7}}"#)
        events.close()
        try await fixture.waitForStreamsToClose()
        let invalid = await fixture.handler.handle(
            method: "GET", target: "/scores.json?ns=test&limitToLast=2", headers: ["Accept": "text/event-stream"])
        guard case .response(let response) = invalid else {
            Issue.record("a stream with invalid query parameters must be refused")
            return
        }
        #expect(response.status == 400)
    }

    @Test func queryStreamsShowChangesInsideTheWindowAtTheChildPath() async throws {
        let fixture = try RESTFixture(seed: #"{"scores": {"a": 5, "b": 1, "c": 9, "d": 3, "e": 4}}"#)
        let events = try await fixture.open(#"/scores.json?orderBy="$key"&limitToFirst=4"#)
        #expect(try await events.next() == #"put {"path":"/","data":{"a":5,"b":1,"c":9,"d":3}}"#)
        _ = try await fixture.send("PUT", "/scores/e.json", body: "40")
        _ = try await fixture.send("PUT", "/scores/b.json", body: #"{".value": 2, ".priority": 1}"#)
        let change = try await events.next()
        #expect(
            change == #"put {"path":"/b","data":2}"# || change == #"put {"path":"/","data":{"a":5,"b":2,"c":9,"d":3}}"#)
        events.close()
        try await fixture.waitForStreamsToClose()
    }

    @Test func keepAliveIsSentWhenATickPassesInSilence() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let events = try await fixture.open("/rooms/r1.json")
        #expect(try await events.next() == #"put {"path":"/","data":{"title":"hi"}}"#)
        fixture.ticker.tick()  // the initial put was sent in this period
        fixture.ticker.tick()
        #expect(try await events.next() == "keep-alive null")
        fixture.ticker.tick()
        #expect(try await events.next() == "keep-alive null")
        _ = try await fixture.send("PUT", "/rooms/r1/title.json", body: #""yo""#)
        #expect(try await events.next() == #"put {"path":"/title","data":"yo"}"#)
        fixture.ticker.tick()  // the put was sent in this period
        _ = try await fixture.send("PUT", "/rooms/r1/title.json", body: #""again""#)
        #expect(try await events.next() == #"put {"path":"/title","data":"again"}"#)
        events.close()
        try await fixture.waitForStreamsToClose()
    }

    @Test func deniedInitialReadIsAPlain401() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        fixture.policy.denyReads(at: "/rooms")
        for target in ["/rooms/r1.json", "/.info/connected.json"] {
            let reply = await fixture.handler.handle(
                method: "GET", target: RESTFixture.inTest(target), headers: ["Accept": "text/event-stream"])
            guard case .response(let response) = reply else {
                Issue.record("expected a 401 response for \(target)")
                continue
            }
            #expect(response.status == 401)
            #expect(response.bodyText == #"{"error":"Permission denied"}"#)
        }
        #expect(fixture.handler.openStreamCount == 0)
    }

    @Test func revokedReadAccessSendsCancelAndEnds() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let events = try await fixture.open("/rooms.json")
        #expect(try await events.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        fixture.policy.denyReads(at: "/rooms")
        _ = try await fixture.send("PUT", "/rooms/r1/title.json", body: #""yo""#)
        #expect(try await events.next() == "cancel null")
        try await events.expectEnd()
        try await fixture.waitForStreamsToClose()
    }

    @Test func revocationIsNoticedAtATickToo() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let events = try await fixture.open("/rooms.json")
        #expect(try await events.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        fixture.policy.denyReads(at: "/")
        fixture.ticker.tick()
        #expect(try await events.next() == "cancel null")
        try await events.expectEnd()
        try await fixture.waitForStreamsToClose()
    }

    @Test func anExpiredCredentialSendsAuthRevokedAndEnds() async throws {
        let valid = Atomic<Bool>(true)
        let fixture = try RESTFixture(seed: Self.seed, isCredentialValid: { _, _ in valid.load(ordering: .relaxed) })
        let events = try await fixture.open("/rooms.json?auth=token")
        #expect(try await events.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        valid.store(false, ordering: .relaxed)
        fixture.ticker.tick()
        #expect(try await events.next() == "auth_revoked credential is no longer valid")
        try await events.expectEnd()
        try await fixture.waitForStreamsToClose()
    }

    @Test func aClientThatGoesAwayReleasesItsStream() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let first = try await fixture.open("/rooms.json")
        let second = try await fixture.open("/rooms.json")
        #expect(try await first.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        #expect(try await second.next() == #"put {"path":"/","data":{"r1":{"title":"hi"}}}"#)
        #expect(fixture.handler.openStreamCount == 2)
        first.close()
        _ = try await fixture.send("PUT", "/rooms/r1/title.json", body: #""yo""#)
        #expect(try await second.next() == #"put {"path":"/r1/title","data":"yo"}"#)
        let deadline = ContinuousClock.now + RESTFixture.timeout
        while fixture.handler.openStreamCount > 1 {
            guard ContinuousClock.now < deadline else {
                throw RESTExpectationFailure(description: "first stream still open")
            }
            await Task.yield()
        }
        second.close()
        try await fixture.waitForStreamsToClose()
        #expect(try await fixture.send("PUT", "/rooms/r1/title.json", body: #""after""#).status == 200)
    }
}
