import Canopy
import Foundation
import Testing

/// Child events of ordered, limited queries against an in-process server.
@Suite struct QueryEventTests {
    @Test func dinosaurScoresTopThree() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        try await DinosaurScenario.run(on: server)
    }

    @Test func orderByChildQuery() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        try await database.reference(withPath: "dinosaurs").setValue([
            "a": ["height": 2.1], "b": ["height": 0.6], "c": ["height": 4], "d": ["height": 0.6],
        ])
        let query = server.database().reference(withPath: "dinosaurs").queryOrdered(byChild: "height")
        let all = try await query.getData()
        #expect(all.children.map(\.key) == ["b", "d", "a", "c"])
        let tall = try await query.queryStarting(atValue: 2).getData()
        #expect(tall.children.map(\.key) == ["a", "c"])
        let fromD = try await query.queryStarting(atValue: 0.6, childKey: "d").queryLimited(toFirst: 2).getData()
        #expect(fromD.children.map(\.key) == ["d", "a"])
    }
}
