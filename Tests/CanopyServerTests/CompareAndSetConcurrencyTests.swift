import CanopyServer
import CanopyTree
import Testing

@Suite("Compare-and-set under contention")
struct CompareAndSetConcurrencyTests {
    /// Ten clients each add 1 ten times to one counter with get + hashed put, retrying on
    /// `datastale`; no increment may be lost or applied twice.
    @Test func tenClientsIncrementingOneCounterReachTheExactTotal() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"counter":0}"#)
        let clientCount = 10
        let increments = 10
        let staleAnswers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<clientCount {
                group.addTask {
                    let client = try await fixture.client()
                    var number = 0
                    var done = 0
                    var stale = 0
                    while done < increments {
                        number += 1
                        await client.request(number, "g", #"{"p":"/counter","q":{}}"#)
                        let current = try Node(
                            json: try #require(JSONParser.parse(try await client.receive())["d"]?["b"]?["d"]))
                        guard case .int(let value)? = current.leafValue else {
                            Issue.record("the counter is not an integer: \(current.exportJSON().serialized())")
                            return stale
                        }
                        number += 1
                        await client.request(number, "p", #"{"p":"/counter","d":\#(value + 1),"h":"\#(current.hash)"}"#)
                        let body = try JSONParser.parse(try await client.receive())["d"]?["b"]
                        switch body?["s"]?.stringValue {
                        case "ok"?: done += 1
                        case "datastale"?: stale += 1
                        default:
                            Issue.record("unexpected answer \(String(describing: body))")
                            return stale
                        }
                    }
                    await client.close()
                    return stale
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(try await fixture.value(at: "/counter") == String(clientCount * increments))
        // Contention is likely but not guaranteed; the count is only reported.
        print("compare-and-set: \(staleAnswers) datastale answers for \(clientCount * increments) increments")
        await fixture.stop()
    }
}
