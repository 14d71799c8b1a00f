import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

/// The Canopy client engine against the Canopy server over the loopback transport.
@Suite("SyncEngine against CanopyServer")
struct SyncEngineEndToEndTests {
    func engine(_ fixture: LoopbackServerFixture) -> SyncEngine {
        SyncEngine(
            configuration: .init(
                target: ConnectionTarget(host: "server", namespace: "test"), transportFactory: fixture.network))
    }

    /// Waits for `count` values from `stream`, failing loudly after a generous timeout.
    func collect<T: Sendable>(_ count: Int, from stream: AsyncStream<T>) async throws -> [T] {
        try await withThrowingTaskGroup(of: [T]?.self) { group in
            group.addTask {
                var values: [T] = []
                for await value in stream {
                    values.append(value)
                    if values.count == count { break }
                }
                return values
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            guard let first = try await group.next(), let values = first else {
                group.cancelAll()
                throw ScriptTimeout(what: "\(count) completions")
            }
            group.cancelAll()
            return values
        }
    }

    /// Runs `perEngine` transactions that increment `/counter` on every engine and waits for
    /// all their completions.
    func incrementCounter(from engines: [SyncEngine], perEngine: Int) async throws -> [TransactionCompletion] {
        let (completions, completed) = AsyncStream.makeStream(of: TransactionCompletion.self)
        for engine in engines {
            for _ in 0..<perEngine {
                try await engine.runTransaction(
                    at: "/counter",
                    update: { current in
                        guard case .int(let value)? = current.leafValue else { return .commit(Node(leaf: .int(1))) }
                        return .commit(Node(leaf: .int(value + 1)))
                    },
                    completion: { completed.yield($0) })
            }
        }
        return try await collect(engines.count * perEngine, from: completions)
    }

    @Test func contendedTransactionsFromFiveEnginesAllCommitExactlyOnce() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"counter":0}"#)
        let engines = (0..<5).map { _ in engine(fixture) }
        let perEngine = 10
        let results = try await incrementCounter(from: engines, perEngine: perEngine)
        #expect(results.allSatisfy { $0.committed && $0.error == nil })
        #expect(try await fixture.value(at: "/counter") == String(engines.count * perEngine))
        for engine in engines { await engine.close() }
        await fixture.stop()
    }

    @Test func writesFromAnEngineAreResolvedAndStoredByTheServer() async throws {
        let fixture = try LoopbackServerFixture()
        let writer = engine(fixture)
        let (acks, acked) = AsyncStream.makeStream(of: Bool.self)
        let value = try Node(json: try JSONParser.parse(#"{"title":"hi","n":{".sv":{"increment":2}}}"#))
        try await writer.setValue(value, at: "/rooms/r1", completion: { acked.yield($0 == nil) })
        let update = try JSONParser.parse(#"{"r1/n":{".sv":{"increment":3}},"r2":{".sv":"timestamp"}}"#)
        guard case .object(let members) = update else { return }
        try await writer.updateChildValues(
            members.map { (Path($0.key), try Node(json: $0.value)) }, at: "/rooms",
            completion: { acked.yield($0 == nil) })
        #expect(try await collect(2, from: acks) == [true, true])
        #expect(try await fixture.value(at: "/rooms") == #"{"r1":{"n":5,"title":"hi"},"r2":1700000000000}"#)
        await writer.close()
        await fixture.stop()
    }

    @Test func freshEngineGetDataAsksTheServer() async throws {
        let fixture = try LoopbackServerFixture(seed: #"{"a":{"b":1}}"#)
        let reader = engine(fixture)
        let read = try await reader.getData(QuerySpec(path: "/a"))
        #expect(read.exportJSON().serialized() == #"{"b":1}"#)
        await reader.close()
        await fixture.stop()
    }
}
