import CanopyServer
import Testing

@Suite("REST requests and events as values")
struct RESTRequestTests {
    @Test func targetIsSplitAndPercentDecoded() throws {
        let request = try RESTRequest(
            method: "GET",
            target: "/users/al%20ice/caf%C3%A9.json?orderBy=%22%24key%22&startAt=%22a+b%22&flag&print=pretty")
        #expect(request.path == "/users/al ice/café.json")
        #expect(
            request.query == [
                .init("orderBy", "\"$key\""), .init("startAt", "\"a+b\""), .init("flag", ""), .init("print", "pretty"),
            ])
        #expect(request.parameter("print") == "pretty")
        #expect(request.parameter("missing") == nil)
    }

    @Test func absoluteTargetsAndFragmentsAreReduced() throws {
        let request = try RESTRequest(method: "GET", target: "http://demo.example.com:9000/a.json?ns=x#frag")
        #expect(request.path == "/a.json")
        #expect(request.query == [.init("ns", "x")])
    }

    @Test func theLastRepeatedParameterWins() throws {
        let request = try RESTRequest(method: "GET", target: "/.json?ns=a&ns=b")
        #expect(request.parameter("ns") == "b")
    }

    @Test(arguments: ["/a%2.json", "/a%zz.json", "/.json?x=%", "/%FF.json"])
    func malformedEscapesAreRefused(target: String) throws {
        #expect(throws: RESTError.self) { try RESTRequest(method: "GET", target: target) }
    }

    @Test func headersAreLookedUpIgnoringCase() {
        var headers: RESTHeaders = ["X-Firebase-ETag": "true", "accept": "text/event-stream"]
        #expect(headers["x-firebase-etag"] == "true")
        #expect(headers["ACCEPT"] == "text/event-stream")
        #expect(headers["if-match"] == nil)
        headers.set("ETAG", "a")
        headers.set("etag", "b")
        #expect(headers.fields.filter { $0.name.lowercased() == "etag" }.count == 1)
        #expect(headers["ETag"] == "b")
    }

    @Test func eventsAreFormattedAsServerSentEvents() throws {
        let put = ServerSentEvent.put(path: "/r1", data: .object([.init("title", .string("hi\nthere"))]))
        #expect(put.text == "event: put\ndata: {\"path\":\"/r1\",\"data\":{\"title\":\"hi\\nthere\"}}\n\n")
        #expect(
            ServerSentEvent.patch(path: .root, data: .object([])).text
                == "event: patch\ndata: {\"path\":\"/\",\"data\":{}}\n\n")
        #expect(ServerSentEvent.keepAlive.text == "event: keep-alive\ndata: null\n\n")
        #expect(ServerSentEvent.cancel.text == "event: cancel\ndata: null\n\n")
        #expect(ServerSentEvent.authRevoked.text == "event: auth_revoked\ndata: credential is no longer valid\n\n")
        #expect(put.bytes == Array(put.text.utf8))
    }

    @Test func errorResponsesCarryTheMessageAsJSON() {
        let response = RESTError.badRequest("bad \"thing\"").response
        #expect(response.status == 400)
        #expect(response.bodyText == #"{"error":"bad \"thing\""}"#)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(RESTError.permissionDenied.response.bodyText == #"{"error":"Permission denied"}"#)
        #expect(RESTError.permissionDenied.status == 401)
    }
}
