import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

/// Reads under `/members` need an authenticated connection.
struct MembersPolicy: AccessPolicy {
    func allowsRead(_ read: ReadAccess) -> Bool { read.path.front?.string != "members" || read.auth.isAuthenticated }
    func allowsWrite(_ write: WriteAccess) -> Bool { true }
    func listenWarnings(_ read: ReadAccess) -> [String] { [] }
}

@Suite("SyncEngine sessions: auth, redirects, the write queue")
struct SyncEngineSessionTests {
    @Test("auth is sent before the listens; dropping it revokes the listen and cancels observers")
    func authAndRevocation() async throws {
        let server = try EngineTestServer(seed: #"{"members":{"a":1}}"#, policy: MembersPolicy())
        let (engine, transports) = server.makeEngine(credential: AuthCredential(credential: "token"))
        let (authenticated, _) = await engine.observe(".info/authenticated")
        let cancels = TestRecorder<DatabaseError>()
        let (events, _) = await engine.observe("/members", cancels: cancels)
        #expect(await events.wait { $0.last?.node.text == #"{"a":1}"# }, "\(events.items.map(\.node.text))")
        #expect(await authenticated.wait { $0.last?.node.text == "true" })
        let actions = transports.requests.items.map(\.action).filter { ["auth", "q"].contains($0) }
        #expect(actions == ["auth", "q"])
        await engine.setCredential(nil)
        #expect(await cancels.wait(forCount: 1), "the revoked listen did not cancel its observer")
        #expect(cancels.items.first?.code == .permissionDenied)
        #expect(await authenticated.wait { $0.last?.node.text == "false" })
        #expect(await engine.observerCount == 1, "only the .info/authenticated observer is left")
        await engine.close()
    }

    @Test("a reset from the server sends the engine to the named host at once")
    func redirect() async throws {
        let server = try EngineTestServer(seed: #"{"r":1}"#)
        let old = try server.network.listen(on: "old")
        let redirecting = Task {
            for await connection in old.connections {
                connection.send(WireMessage.control(.reset(host: "server")).serialized())
                connection.close()
            }
        }
        let (engine, transports) = server.makeEngine(host: "old")
        #expect(await engine.waitUntilConnected())
        #expect(try await engine.getData(QuerySpec(path: "/r")).text == "1")
        #expect(transports.attempts == 2)
        await old.close()
        redirecting.cancel()
        await engine.close()
    }

    @Test("writes left in the write queue are re-sent by the next engine, ids continuing after them")
    func writeQueueRestore() async throws {
        let server = try EngineTestServer()
        let queue = MemoryWriteQueueStore()
        let (first, _) = server.makeEngine(startsOnline: false, writeQueue: queue)
        _ = try await first.set("1", at: "/q/a")
        try await first.updateChildValues([(Path("b"), try node("2"))], at: "/q")
        await first.close()
        #expect(queue.loadWrites().map(\.writeId) == [1, 2])

        let (second, transports) = server.makeEngine(writeQueue: queue)
        let (events, _) = await second.observe("/q")
        #expect(await events.wait { $0.last?.node.text == #"{"a":1,"b":2}"# }, "\(events.items.map(\.node.text))")
        await second.waitForPendingWrites()
        #expect(try await server.value(at: "/q") == #"{"a":1,"b":2}"#)
        #expect(queue.loadWrites().isEmpty)
        let statuses = await second.writeStatuses()
        let collected = TestRecorder<WriteStatus>()
        let reader = Task { for await status in statuses { collected.append(status) } }
        _ = try await second.set("3", at: "/q/c")
        #expect(await collected.wait(forCount: 1))
        #expect(collected.items.first?.writeId == 3)
        #expect(transports.requests.items.filter { $0.action == "p" || $0.action == "m" }.count >= 2)
        reader.cancel()
        await second.close()
    }
}
