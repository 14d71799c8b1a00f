import CanopyServer
import CanopyTree
import Testing

@Suite("REST reads")
struct RESTReadTests {
    static let seed = #"""
        {"users": {"alice": {"name": "Alice", "age": 30, ".priority": 2},
                   "bob": {"name": "Bob", "age": 25, ".priority": 1},
                   "carol": {"name": "Carol", "age": 41}},
         "list": {"0": "x", "1": "y", "2": {".value": "z", ".priority": 9}},
         "scores": {"a": 5, "b": 1, "c": 9, "d": 3},
         "leaf": {".value": "text", ".priority": "p"}}
        """#

    func fixture() throws -> RESTFixture { try RESTFixture(seed: Self.seed) }

    @Test func getAnswersPlainJSONWithTheArrayRule() async throws {
        let fixture = try fixture()
        let list = try await fixture.send("GET", "/list.json")
        #expect(list.status == 200)
        #expect(list.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(list.bodyText == #"["x","y","z"]"#)
        let alice = try await fixture.send("GET", "/users/alice.json")
        #expect(alice.bodyText == #"{"age":30,"name":"Alice"}"#)
        #expect(try await fixture.send("GET", "/leaf.json").bodyText == #""text""#)
    }

    @Test func missingDataIsNull() async throws {
        let fixture = try fixture()
        let response = try await fixture.send("GET", "/nothing/here.json")
        #expect(response.status == 200)
        #expect(response.bodyText == "null")
    }

    @Test func formatExportKeepsPrioritiesAndObjects() async throws {
        let fixture = try fixture()
        #expect(
            try await fixture.send("GET", "/list.json?format=export").bodyText
                == #"{"0":"x","1":"y","2":{".value":"z",".priority":9}}"#)
        #expect(
            try await fixture.send("GET", "/users/alice.json?format=export").bodyText
                == #"{"age":30,"name":"Alice",".priority":2}"#)
        #expect(
            try await fixture.send("GET", "/leaf.json?format=export").bodyText == #"{".value":"text",".priority":"p"}"#)
    }

    @Test func theRootIsSlashDotJSON() async throws {
        let fixture = try RESTFixture(seed: #"{"a": 1}"#)
        #expect(try await fixture.send("GET", "/.json").bodyText == #"{"a":1}"#)
        #expect(try await fixture.send("GET", "/a/.json").bodyText == "1")
    }

    @Test func percentEncodedKeysAreDecoded() async throws {
        let fixture = try RESTFixture(seed: #"{"a b": {"é": true}}"#)
        #expect(try await fixture.send("GET", "/a%20b/%C3%A9.json").bodyText == "true")
    }

    @Test func shallowAnswersTrueForEachChildAndLeavesAsValues() async throws {
        let fixture = try fixture()
        #expect(
            try await fixture.send("GET", "/users.json?shallow=true").bodyText
                == #"{"alice":true,"bob":true,"carol":true}"#)
        #expect(try await fixture.send("GET", "/users/alice/age.json?shallow=true").bodyText == "30")
        #expect(try await fixture.send("GET", "/leaf.json?shallow=true").bodyText == #""text""#)
        #expect(try await fixture.send("GET", "/none.json?shallow=true").bodyText == "null")
        let combined = try await fixture.send("GET", #"/users.json?shallow=true&orderBy="$key""#)
        #expect(combined.status == 400)
        #expect(try await fixture.send("GET", "/users.json?shallow=maybe").status == 400)
    }

    @Test func printPrettyIndentsAndSilentAnswers204() async throws {
        let fixture = try RESTFixture(seed: #"{"a": {"b": 1}}"#)
        let pretty = try await fixture.send("GET", "/.json?print=pretty")
        #expect(
            pretty.bodyText == JSONValue.object([.init("a", .object([.init("b", .int(1))]))]).serialized(pretty: true))
        #expect(pretty.bodyText.contains("\n"))
        let silent = try await fixture.send("GET", "/.json?print=silent")
        #expect(silent.status == 204)
        #expect(silent.body.isEmpty)
        #expect(try await fixture.send("GET", "/.json?print=loud").status == 400)
        #expect(try await fixture.send("GET", "/.json?format=xml").status == 400)
    }

    @Test func orderByKeyWithBounds() async throws {
        let fixture = try fixture()
        let response = try await fixture.send("GET", #"/scores.json?orderBy="$key"&startAt="b"&endAt="c""#)
        #expect(response.bodyText == #"{"b":1,"c":9}"#)
        let after = try await fixture.send("GET", #"/scores.json?orderBy="$key"&startAfter="b"&endBefore="d""#)
        #expect(after.bodyText == #"{"c":9}"#)
    }

    @Test func orderByValueWithLimits() async throws {
        let fixture = try fixture()
        #expect(
            try await fixture.send("GET", #"/scores.json?orderBy="$value"&limitToFirst=2"#).bodyText
                == #"{"b":1,"d":3}"#)
        #expect(
            try await fixture.send("GET", #"/scores.json?orderBy="$value"&limitToLast=2"#).bodyText == #"{"a":5,"c":9}"#
        )
        #expect(try await fixture.send("GET", #"/scores.json?orderBy="$value"&equalTo=9"#).bodyText == #"{"c":9}"#)
        #expect(
            try await fixture.send("GET", #"/scores.json?orderBy="$value"&startAt=3&endAt=5"#).bodyText
                == #"{"a":5,"d":3}"#)
    }

    @Test func orderByChildAndPriority() async throws {
        let fixture = try fixture()
        let byAge = try await fixture.send("GET", #"/users.json?orderBy="age"&startAt=26"#)
        #expect(byAge.bodyText == #"{"alice":{"age":30,"name":"Alice"},"carol":{"age":41,"name":"Carol"}}"#)
        let byPriority = try await fixture.send("GET", #"/users.json?orderBy="$priority"&startAt=1&endAt=1"#)
        #expect(byPriority.bodyText == #"{"bob":{"age":25,"name":"Bob"}}"#)
        let encoded = try await fixture.send("GET", "/users.json?orderBy=%22name%22&equalTo=%22Carol%22")
        #expect(encoded.bodyText == #"{"carol":{"age":41,"name":"Carol"}}"#)
    }

    @Test func queryParameterErrorsAre400() async throws {
        let fixture = try fixture()
        let missing = try await fixture.send("GET", "/scores.json?limitToFirst=1")
        #expect(missing.status == 400)
        #expect(missing.bodyText == #"{"error":"orderBy must be defined when other query parameters are defined"}"#)
        #expect(try await fixture.send("GET", "/scores.json?orderBy=$key").status == 400)
        #expect(try await fixture.send("GET", #"/scores.json?orderBy="$key"&startAt=a"#).status == 400)
        #expect(try await fixture.send("GET", #"/scores.json?orderBy="$value"&limitToFirst=-1"#).status == 400)
        #expect(
            try await fixture.send("GET", #"/scores.json?orderBy="$value"&limitToFirst=1&limitToLast=1"#).status == 400)
    }

    @Test func unindexedChildQueriesAreRefusedOnlyWhenConfigured() async throws {
        let lenient = try RESTFixture(seed: Self.seed)
        #expect(try await lenient.send("GET", #"/users.json?orderBy="age"&limitToFirst=1"#).status == 200)
        let strict = try RESTFixture(seed: Self.seed, rejectsUnindexedQueries: true)
        let refused = try await strict.send("GET", #"/users.json?orderBy="age"&limitToFirst=1"#)
        #expect(refused.status == 400)
        #expect(
            try JSONParser.parse(refused.bodyText)["error"]?.stringValue
                == #"Index not defined, add ".indexOn": "age", for path "/users", to the rules"#)
        #expect(try await strict.send("GET", #"/users.json?orderBy="indexed"&limitToFirst=1"#).status == 200)
        #expect(try await strict.send("GET", #"/users.json?orderBy="$key"&limitToFirst=1"#).status == 200)
        let stream = await strict.handler.handle(
            method: "GET", target: RESTFixture.inTest(#"/users.json?orderBy="age""#),
            headers: ["Accept": "text/event-stream"])
        guard case .response(let response) = stream else {
            Issue.record("an unindexed stream must be refused")
            return
        }
        #expect(response.status == 400)
    }

    @Test func timeoutIsParsedAndEnforced() async throws {
        let fixture = try fixture()
        #expect(try await fixture.send("GET", "/scores.json?timeout=500ms").status == 200)
        #expect(try await fixture.send("GET", "/scores.json?timeout=3s").status == 200)
        #expect(try await fixture.send("GET", "/scores.json?timeout=15min").status == 200)
        #expect(try await fixture.send("GET", "/scores.json?timeout=16min").status == 400)
        #expect(try await fixture.send("GET", "/scores.json?timeout=10h").status == 400)
        #expect(try await fixture.send("GET", "/scores.json?timeout=ms").status == 400)
        let expired = try await fixture.send("GET", "/scores.json?timeout=0ms")
        #expect(expired.status == 400)
        #expect(expired.bodyText.contains("timeout"))
    }

    @Test func callbackWrapsJSONP() async throws {
        let fixture = try RESTFixture(seed: #"{"a": 1}"#)
        let response = try await fixture.send("GET", "/a.json?callback=app.done_1")
        #expect(response.bodyText == "app.done_1(1);")
        #expect(response.headers["Content-Type"] == "application/javascript; charset=utf-8")
        #expect(try await fixture.send("GET", "/a.json?callback=alert(1)").status == 400)
        #expect(try await fixture.send("GET", "/a.json?callback=1abc").status == 400)
    }

    @Test func downloadAddsContentDisposition() async throws {
        let fixture = try RESTFixture(seed: #"{"a": 1}"#)
        let response = try await fixture.send("GET", "/.json?download=backup%22.json")
        #expect(response.headers["Content-Disposition"] == #"attachment; filename="backup.json""#)
        #expect(response.bodyText == #"{"a":1}"#)
    }

    @Test func invalidPathsAre400() async throws {
        let fixture = try fixture()
        let missingSuffix = try await fixture.send("GET", "/users")
        #expect(missingSuffix.status == 400)
        #expect(missingSuffix.bodyText.contains(".json"))
        for target in ["/a$b.json", "/a%5Bb%5D.json", "/a%23.json", "/x.y.json", "/a%01.json"] {
            let response = try await fixture.send("GET", target)
            #expect(response.status == 400, "\(target)")
            #expect((try? JSONParser.parse(response.bodyText))?["error"]?.stringValue != nil, "\(target)")
        }
    }

    @Test func infoAndDeniedReadsArePermissionDenied() async throws {
        let fixture = try fixture()
        let info = try await fixture.send("GET", "/.info/connected.json")
        #expect(info.status == 401)
        #expect(info.bodyText == #"{"error":"Permission denied"}"#)
        fixture.policy.denyReads(at: "/users/bob")
        #expect(try await fixture.send("GET", "/users/bob/name.json").status == 401)
        #expect(try await fixture.send("GET", "/users/alice.json").status == 200)
    }

    @Test func unsupportedMethodsAre405() async throws {
        let fixture = try fixture()
        for method in ["HEAD", "OPTIONS", "TRACE", "CONNECT"] {
            let response = try await fixture.send(method, "/.json")
            #expect(response.status == 405, "\(method)")
            #expect(response.bodyText.contains("error"))
        }
    }

    @Test func namespacesComeFromNsThenHostThenDefault() async throws {
        let fixture = try RESTFixture(seed: #"{"where": "test"}"#)
        _ = try await fixture.send("PUT", "/where.json?ns=other", body: #""other""#, namespace: false)
        _ = try await fixture.send("PUT", "/where.json", body: #""default""#, namespace: false)
        #expect(try await fixture.send("GET", "/where.json").bodyText == #""test""#)
        #expect(try await fixture.send("GET", "/where.json?ns=other", namespace: false).bodyText == #""other""#)
        let byHost = try await fixture.send(
            "GET", "/where.json", headers: ["Host": "other.firebaseio.com"], namespace: false)
        #expect(byHost.bodyText == #""other""#)
        let byLocalhost = try await fixture.send(
            "GET", "/where.json", headers: ["Host": "127.0.0.1:9000"], namespace: false)
        #expect(byLocalhost.bodyText == #""default""#)
        let unknown = try await fixture.send("GET", "/.json?ns=missing", namespace: false)
        #expect(unknown.status == 404)
        #expect(unknown.bodyText.contains("missing"))
    }

    @Test func credentialsReachThePolicyAndExpiredOnesAre401() async throws {
        let fixture = try RESTFixture(
            seed: #"{"a": 1}"#, isCredentialValid: { auth, _ in auth.credential != "expired" })
        #expect(try await fixture.send("GET", "/a.json?auth=good").status == 200)
        #expect(fixture.policy.lastSeenAuth?.credential == "good")
        #expect(fixture.policy.lastSeenAuth?.kind == .firebaseToken)
        #expect(try await fixture.send("GET", "/a.json?access_token=google").status == 200)
        #expect(fixture.policy.lastSeenAuth?.credential == "google")
        #expect(fixture.policy.lastSeenAuth?.kind == .googleAccessToken)
        #expect(try await fixture.send("GET", "/a.json").status == 200)
        #expect(fixture.policy.lastSeenAuth == .unauthenticated)
        #expect(try await fixture.send("GET", "/a.json?auth=expired").status == 401)
        #expect(try await fixture.send("GET", "/a.json?access_token=expired").status == 401)
        #expect(try await fixture.send("GET", "/a.json", headers: ["Authorization": "Bearer expired"]).status == 401)
        #expect(try await fixture.send("GET", "/a.json", headers: ["Authorization": "Bearer owner"]).status == 200)
        #expect(fixture.policy.lastSeenAuth?.credential == "owner")
        #expect(fixture.policy.lastSeenAuth?.kind == .googleAccessToken)
        #expect(try await fixture.send("GET", "/a.json", headers: ["Authorization": "Basic abc"]).status == 401)
        #expect(try await fixture.send("GET", "/a.json?auth_variable_override=%7B%22uid%22%3A%22u%22%7D").status == 200)
        #expect(fixture.policy.lastSeenAuth?.authVariable == .object([.init("uid", .string("u"))]))
        #expect(try await fixture.send("GET", "/a.json?auth_variable_override=null").status == 200)
        #expect(fixture.policy.lastSeenAuth?.actsUnauthenticated == true)
        #expect(try await fixture.send("GET", "/a.json?auth_variable_override={bad").status == 400)
    }
}
