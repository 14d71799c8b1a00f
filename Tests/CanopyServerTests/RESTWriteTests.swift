import CanopyServer
import CanopyTree
import Testing

@Suite("REST writes")
struct RESTWriteTests {
    @Test func putStoresAndEchoesTheValue() async throws {
        let fixture = try RESTFixture()
        let response = try await fixture.send("PUT", "/rooms/r1.json", body: #"{"title": "hi", "n": [1, 2]}"#)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.bodyText == #"{"n":[1,2],"title":"hi"}"#)
        #expect(try await fixture.value(at: "/rooms") == #"{"r1":{"n":{"0":1,"1":2},"title":"hi"}}"#)
    }

    @Test func putResolvesServerValuesAndAcceptsExportForm() async throws {
        let fixture = try RESTFixture(seed: #"{"count": 4}"#)
        fixture.setTime(1_700_000_000_123)
        let response = try await fixture.send(
            "PUT", "/stamp.json", body: #"{"at": {".sv": "timestamp"}, ".priority": 3}"#)
        #expect(response.bodyText == #"{"at":1700000000123}"#)
        #expect(try await fixture.value(at: "/stamp") == #"{"at":1700000000123,".priority":3}"#)
        let increment = try await fixture.send("PUT", "/count.json", body: #"{".sv": {"increment": 2}}"#)
        #expect(increment.bodyText == "6")
        let exported = try await fixture.send(
            "PUT", "/p.json?format=export", body: #"{".value": "v", ".priority": "q"}"#)
        #expect(exported.bodyText == #"{".value":"v",".priority":"q"}"#)
        #expect(try await fixture.send("PUT", "/bad.json", body: #"{".sv": "nonsense"}"#).status == 400)
    }

    @Test func putAtPriorityPathSetsThePriority() async throws {
        let fixture = try RESTFixture(seed: #"{"a": 1}"#)
        #expect(try await fixture.send("PUT", "/a/.priority.json", body: "7").status == 200)
        #expect(try await fixture.value(at: "/a") == #"{".value":1,".priority":7}"#)
    }

    @Test func printSilentAnswers204ForEveryWrite() async throws {
        let fixture = try RESTFixture(seed: #"{"a": {"b": 1}}"#)
        for (method, body) in [("PUT", "1"), ("POST", "2"), ("PATCH", #"{"c": 3}"#), ("DELETE", "")] {
            let response = try await fixture.send(method, "/a.json?print=silent", body: body)
            #expect(response.status == 204, "\(method)")
            #expect(response.body.isEmpty, "\(method)")
        }
        #expect(try await fixture.value(at: "/a") == "null")
    }

    @Test func postAddsAChildUnderAServerPushID() async throws {
        let fixture = try RESTFixture()
        fixture.setTime(1_735_689_600_000)
        let response = try await fixture.send("POST", "/messages.json", body: #"{"text": "hello"}"#)
        #expect(response.status == 200)
        let name = try #require(try JSONParser.parse(response.bodyText)["name"]?.stringValue)
        #expect(name.count == 20)
        #expect(name.hasPrefix("-OFU9Mk-"))
        #expect(try await fixture.value(at: Path("/messages").child(ChildKey(name))) == #"{"text":"hello"}"#)
    }

    @Test func postPushIDsIncrease() async throws {
        let fixture = try RESTFixture()
        var names: [String] = []
        for index in 0..<20 {
            if index % 5 == 0 { fixture.setTime(RESTFixture.start + Int64(index)) }
            let response = try await fixture.send("POST", "/list.json", body: String(index))
            names.append(try #require(try JSONParser.parse(response.bodyText)["name"]?.stringValue))
        }
        #expect(names == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(Set(names).count == names.count)
        let stored = try JSONParser.parse(try await fixture.value(at: "/list"))
        guard case .object(let members) = stored else {
            Issue.record("expected an object, got \(stored)")
            return
        }
        #expect(members.map(\.key) == names)
        #expect(members.map(\.value) == (0..<20).map { JSONValue.int(Int64($0)) })
    }

    @Test func patchIsAnAtomicMultiPathUpdate() async throws {
        let fixture = try RESTFixture(
            seed: #"{"users": {"alice": {"name": "Alice", "age": 30}, "bob": {"name": "Bob"}}}"#)
        let response = try await fixture.send(
            "PATCH", "/users.json", body: #"{"alice/age": 31, "bob": null, "carol/name": "Carol"}"#)
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"alice/age":31,"bob":null,"carol/name":"Carol"}"#)
        #expect(
            try await fixture.value(at: "/users") == #"{"alice":{"age":31,"name":"Alice"},"carol":{"name":"Carol"}}"#)
    }

    @Test func aPatchWithOneBadMemberWritesNothing() async throws {
        let fixture = try RESTFixture(seed: #"{"a": 1, "b": 2}"#)
        let before = try await fixture.value(at: .root)
        let invalidKey = try await fixture.send("PATCH", "/.json", body: #"{"a": 10, "b/c$": 3}"#)
        #expect(invalidKey.status == 400)
        let overlapping = try await fixture.send("PATCH", "/.json", body: #"{"a": 10, "b": 3, "b/c": 4}"#)
        #expect(overlapping.status == 400)
        fixture.policy.denyWrites(at: "/b")
        let denied = try await fixture.send("PATCH", "/.json", body: #"{"a": 10, "b": 3}"#)
        #expect(denied.status == 401)
        #expect(denied.bodyText == #"{"error":"Permission denied"}"#)
        #expect(try await fixture.value(at: .root) == before)
        #expect(try await fixture.send("PATCH", "/.json", body: "[1, 2]").status == 400)
        #expect(try await fixture.send("PATCH", "/.json", body: "{}").bodyText == "{}")
    }

    @Test func deleteRemovesAndAnswersNull() async throws {
        let fixture = try RESTFixture(seed: #"{"a": {"b": 1, "c": 2}}"#)
        let response = try await fixture.send("DELETE", "/a/b.json")
        #expect(response.status == 200)
        #expect(response.bodyText == "null")
        #expect(try await fixture.value(at: "/a") == #"{"c":2}"#)
    }

    @Test func postWithMethodOverrideActsAsThatMethod() async throws {
        let fixture = try RESTFixture(seed: #"{"a": {"b": 1, "c": 2}}"#)
        let put = try await fixture.send("POST", "/a/b.json", body: "5", headers: ["X-HTTP-Method-Override": "PUT"])
        #expect(put.bodyText == "5")
        let patch = try await fixture.send("POST", "/a.json?x-http-method-override=PATCH", body: #"{"d": 4}"#)
        #expect(patch.bodyText == #"{"d":4}"#)
        let delete = try await fixture.send("POST", "/a/c.json", headers: ["x-http-method-override": "DELETE"])
        #expect(delete.bodyText == "null")
        #expect(try await fixture.value(at: "/a") == #"{"b":5,"d":4}"#)
        let bogus = try await fixture.send("POST", "/a.json", body: "1", headers: ["X-HTTP-Method-Override": "TRACE"])
        #expect(bogus.status == 405)
        let notFromGet = try await fixture.send("GET", "/a.json", headers: ["X-HTTP-Method-Override": "DELETE"])
        #expect(notFromGet.bodyText == #"{"b":5,"d":4}"#)
    }

    @Test func invalidJSONBodiesAre400WithAClearError() async throws {
        let fixture = try RESTFixture()
        for body in ["", "{", "{'a': 1}", "[1,]", "tru", "NaN"] {
            let response = try await fixture.send("PUT", "/a.json", body: body)
            #expect(response.status == 400, "\(body)")
            let message = try #require(try JSONParser.parse(response.bodyText)["error"]?.stringValue)
            #expect(message.hasPrefix("Invalid data; couldn't parse JSON"), "\(message)")
        }
        #expect(try await fixture.send("POST", "/a.json", body: "{").status == 400)
        #expect(try await fixture.send("PATCH", "/a.json", body: "{").status == 400)
        #expect(try await fixture.value(at: .root) == "null")
    }

    @Test func invalidKeysInPathsAndBodiesAre400() async throws {
        let fixture = try RESTFixture()
        #expect(try await fixture.send("PUT", "/a$b.json", body: "1").status == 400)
        let badKey = try await fixture.send("PUT", "/a.json", body: #"{"b.c": 1}"#)
        #expect(badKey.status == 400)
        #expect(badKey.bodyText.contains("b.c"))
        #expect(try await fixture.send("POST", "/a/.priority.json", body: "1").status == 400)
        #expect(try await fixture.value(at: .root) == "null")
    }

    @Test func writesToInfoOrDeniedPathsArePermissionDenied() async throws {
        let fixture = try RESTFixture()
        for method in ["PUT", "POST", "PATCH", "DELETE"] {
            let response = try await fixture.send(
                method, "/.info/connected.json", body: method == "PATCH" ? "{}" : "true")
            #expect(response.status == 401, "\(method)")
            #expect(response.bodyText == #"{"error":"Permission denied"}"#, "\(method)")
        }
        fixture.policy.denyWrites(at: "/locked")
        #expect(try await fixture.send("PUT", "/locked/x.json", body: "1").status == 401)
        #expect(try await fixture.send("POST", "/locked.json", body: "1").status == 401)
        #expect(try await fixture.send("DELETE", "/locked.json").status == 401)
        #expect(try await fixture.value(at: .root) == "null")
    }

    @Test func writeSizeLimitsRefuseLargeBodies() async throws {
        let fixture = try RESTFixture(maximumWriteBytes: 2_000_000)
        let big = "\"" + String(repeating: "x", count: 1_100_000) + "\""
        let tiny = try await fixture.send("PUT", "/big.json?writeSizeLimit=tiny", body: big)
        #expect(tiny.status == 413)
        #expect(tiny.bodyText.contains("writeSizeLimit"))
        #expect(try await fixture.value(at: "/big") == "null")
        #expect(try await fixture.send("PUT", "/big.json?writeSizeLimit=small&print=silent", body: big).status == 204)
        #expect(try await fixture.send("PUT", "/big.json?writeSizeLimit=huge", body: "1").status == 400)
        let tooLarge = "\"" + String(repeating: "y", count: 2_000_000) + "\""
        for limit in ["", "?writeSizeLimit=unlimited"] {
            let response = try await fixture.send("PUT", "/big.json\(limit)", body: tooLarge)
            #expect(response.status == 400)
            #expect(response.bodyText.contains("too large"))
        }
        for limit in ["tiny", "small", "medium", "large", "unlimited"] {
            #expect(try await fixture.send("PUT", "/ok.json?writeSizeLimit=\(limit)", body: "1").status == 200)
        }
    }

    @Test func writeSizeLimitCountsTheDataAWriteReplaces() async throws {
        let fixture = try RESTFixture()
        let chunk = "\"" + String(repeating: "q", count: 300_000) + "\""
        for index in 0..<4 {
            #expect(try await fixture.send("PUT", "/large/\(index).json?print=silent", body: chunk).status == 204)
        }
        let delete = try await fixture.send("DELETE", "/large.json?writeSizeLimit=tiny")
        #expect(delete.status == 413)
        #expect(try await fixture.send("PUT", "/large.json?writeSizeLimit=tiny", body: "1").status == 413)
        #expect(try await fixture.send("PATCH", "/.json?writeSizeLimit=tiny", body: #"{"large": null}"#).status == 413)
        #expect(try await fixture.send("DELETE", "/large/0.json?writeSizeLimit=tiny").status == 200)
        #expect(try await fixture.send("POST", "/large.json?writeSizeLimit=tiny", body: "1").status == 200)
        #expect(try await fixture.send("DELETE", "/large.json?writeSizeLimit=small").status == 200)
        #expect(try await fixture.value(at: "/large") == "null")
    }

    @Test func restWritesMayExceedTheWebsocketWriteLimit() async throws {
        let fixture = try RESTFixture()
        let half = String(repeating: "z", count: 8_500_000)
        let body = #"{"a": ""# + half + #"", "b": ""# + half + #""}"#
        #expect(body.utf8.count > TreeValidation.maxWriteBytes)
        #expect(try await fixture.send("PUT", "/big.json?print=silent", body: body).status == 204)
        #expect(try await fixture.send("PATCH", "/big.json?print=silent", body: body).status == 204)
        let stored = try await fixture.server.namespace(named: "test").value(at: "/big/a")
        #expect(stored.leafValue == .string(half))
    }

    @Test func theDefaultRequestLimitIs256MB() {
        #expect(RESTHandler.Configuration().maximumWriteBytes == 256 * 1024 * 1024)
    }
}
