import CanopyServer
import CanopyTree
import Testing

@Suite("REST ETags and conditional requests")
struct RESTETagTests {
    /// protocol.md §6.3: the hash of `{"a": 1, "b": "x"}`.
    static let abHash = "jRI9dwRS9sb4SWm8uuoN7+xBk4g="
    static let seed = #"{"d": {"a": 1, "b": "x"}, "counter": 10}"#

    @Test func getWithETagHeaderAnswersTheSimpleHash() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let response = try await fixture.send("GET", "/d.json", headers: ["X-Firebase-ETag": "true"])
        #expect(response.headers["ETag"] == Self.abHash)
        #expect(response.bodyText == #"{"a":1,"b":"x"}"#)
        let counter = try await fixture.send("GET", "/counter.json", headers: ["x-firebase-etag": "true"])
        #expect(counter.headers["etag"] == "+r5aI9HvKKagELki8SYKBk0q7D4=")
        let empty = try await fixture.send("GET", "/none.json", headers: ["X-Firebase-ETag": "true"])
        #expect(empty.headers["ETag"] == "null_etag")
        #expect(try await fixture.send("GET", "/d.json").headers["ETag"] == nil)
    }

    @Test func etagsAreRefusedWithShallowOrQueries() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        #expect(
            try await fixture.send("GET", "/d.json?shallow=true", headers: ["X-Firebase-ETag": "true"]).status == 400)
        let query = try await fixture.send("GET", #"/d.json?orderBy="$key""#, headers: ["X-Firebase-ETag": "true"])
        #expect(query.status == 400)
    }

    @Test func ifMatchWithTheCurrentETagWrites() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let response = try await fixture.send(
            "PUT", "/counter.json", body: "11", headers: ["if-match": "+r5aI9HvKKagELki8SYKBk0q7D4="])
        #expect(response.status == 200)
        #expect(response.bodyText == "11")
        let next = try await fixture.send("GET", "/counter.json", headers: ["X-Firebase-ETag": "true"])
        #expect(response.headers["ETag"] == next.headers["ETag"])
        #expect(response.headers["ETag"] != "+r5aI9HvKKagELki8SYKBk0q7D4=")
        #expect(try await fixture.value(at: "/counter") == "11")
    }

    @Test func ifMatchWithAStaleETagIs412WithTheCurrentDataAndETag() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let stale = try await fixture.send("PUT", "/d.json", body: #"{"a": 2}"#, headers: ["if-match": "stale"])
        #expect(stale.status == 412)
        #expect(stale.headers["ETag"] == Self.abHash)
        #expect(stale.bodyText == #"{"a":1,"b":"x"}"#)
        #expect(try await fixture.value(at: "/d") == #"{"a":1,"b":"x"}"#)
        let retry = try await fixture.send("PUT", "/d.json", body: #"{"a": 2}"#, headers: ["if-match": Self.abHash])
        #expect(retry.status == 200)
        #expect(try await fixture.value(at: "/d") == #"{"a":2}"#)
    }

    @Test func nullETagMeansCreateOnlyIfAbsent() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let created = try await fixture.send("PUT", "/new.json", body: "1", headers: ["if-match": "null_etag"])
        #expect(created.status == 200)
        let again = try await fixture.send("PUT", "/new.json", body: "2", headers: ["if-match": "null_etag"])
        #expect(again.status == 412)
        #expect(again.bodyText == "1")
        #expect(try await fixture.value(at: "/new") == "1")
    }

    @Test func deleteHonoursIfMatch() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let refused = try await fixture.send("DELETE", "/d.json", headers: ["if-match": "null_etag"])
        #expect(refused.status == 412)
        #expect(try await fixture.value(at: "/d") == #"{"a":1,"b":"x"}"#)
        let deleted = try await fixture.send("DELETE", "/d.json", headers: ["if-match": Self.abHash])
        #expect(deleted.status == 200)
        #expect(deleted.headers["ETag"] == "null_etag")
        #expect(try await fixture.value(at: "/d") == "null")
    }

    @Test func ifMatchIsRefusedOnPostAndPatch() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        #expect(try await fixture.send("POST", "/d.json", body: "1", headers: ["if-match": Self.abHash]).status == 400)
        #expect(
            try await fixture.send("PATCH", "/d.json", body: #"{"a":3}"#, headers: ["if-match": Self.abHash]).status
                == 400)
        #expect(try await fixture.value(at: "/d") == #"{"a":1,"b":"x"}"#)
    }

    @Test func ifNoneMatchAnswers304WhenUnchanged() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        let unchanged = try await fixture.send("GET", "/d.json", headers: ["if-none-match": Self.abHash])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.headers["ETag"] == Self.abHash)
        _ = try await fixture.send("PUT", "/d/a.json", body: "5")
        let changed = try await fixture.send("GET", "/d.json", headers: ["if-none-match": Self.abHash])
        #expect(changed.status == 200)
        #expect(changed.bodyText == #"{"a":5,"b":"x"}"#)
        #expect(changed.headers["ETag"] != Self.abHash)
    }

    @Test func pyAdminTransactionLoop() async throws {
        let fixture = try RESTFixture(seed: Self.seed)
        // GET with ETag, then a conditional PUT that loses a race, then the retry from the 412.
        let read = try await fixture.send("GET", "/counter.json", headers: ["X-Firebase-ETag": "true"])
        let etag = try #require(read.headers["ETag"])
        _ = try await fixture.send("PUT", "/counter.json?print=silent", body: "12")
        let lost = try await fixture.send("PUT", "/counter.json", body: "11", headers: ["if-match": etag])
        #expect(lost.status == 412)
        #expect(lost.bodyText == "12")
        let current = try #require(lost.headers["ETag"])
        let won = try await fixture.send("PUT", "/counter.json", body: "13", headers: ["if-match": current])
        #expect(won.status == 200)
        #expect(try await fixture.value(at: "/counter") == "13")
    }
}
