import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

/// Refuses writes and reads under `/locked`.
struct LockedPolicy: AccessPolicy {
    func allowsRead(_ read: ReadAccess) -> Bool { read.path.front?.string != "locked" }
    func allowsWrite(_ write: WriteAccess) -> Bool { write.path.front?.string != "locked" }
    func listenWarnings(_ read: ReadAccess) -> [String] { [] }
}

@Suite("SyncEngine writes against a loopback server")
struct SyncEngineWriteTests {
    @Test("a set raises local events before the ack, then lands on the server")
    func setRaisesLocalEventsFirst() async throws {
        let server = try EngineTestServer()
        let (engine, _) = server.makeEngine()
        let order = TestRecorder<String>()
        let registration = ObserverRegistration(eventTypes: [.value]) { order.append("value \($0.node.text)") }
        await engine.addObserver(registration, for: QuerySpec(path: "/a"))
        #expect(await order.wait { $0.contains("value null") }, "the initial value event never came")
        try await engine.setValue(try node(#"{"b":1}"#), at: "/a") { error in
            order.append("completion \(error.map { "\($0)" } ?? "ok")")
        }
        #expect(await order.wait { $0.contains("completion ok") }, "the set was never acknowledged")
        #expect(order.items == ["value null", #"value {"b":1}"#, "completion ok"])
        #expect(try await server.value(at: "/a") == #"{"b":1}"#)
        #expect(await engine.pendingWriteCount == 0)
        await engine.close()
    }

    @Test("a write the server refuses is reverted with an error")
    func rejectedWriteReverts() async throws {
        let server = try EngineTestServer(policy: LockedPolicy())
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/locked/x")
        let done = try await engine.set("5", at: "/locked/x")
        #expect(await done.wait(forCount: 1), "no completion")
        #expect(done.items.first??.code == .permissionDenied)
        // Listen refused too: the view never completes, so only the local write's value and
        // its revert can show; the revert raises nothing because no complete value is known.
        #expect(events.items.map(\.node.text).first == "5")
        #expect(try await server.value(at: "/locked/x") == "null")
        #expect(await engine.pendingWriteCount == 0)
        await engine.close()
    }

    @Test("a refused write reverts to the server's value at a readable location")
    func revertRestoresServerValue() async throws {
        struct NoWritesPolicy: AccessPolicy {
            func allowsRead(_ read: ReadAccess) -> Bool { true }
            func allowsWrite(_ write: WriteAccess) -> Bool { false }
            func listenWarnings(_ read: ReadAccess) -> [String] { [] }
        }
        let server = try EngineTestServer(seed: #"{"a":1}"#, policy: NoWritesPolicy())
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait { $0.contains { $0.node.text == "1" } }, "never saw the server value")
        let done = try await engine.set("2", at: "/a")
        #expect(await done.wait(forCount: 1), "no completion")
        #expect(done.items.first??.code == .permissionDenied)
        #expect(
            await events.wait { $0.map(\.node.text) == ["1", "2", "1"] }, "events: \(events.items.map(\.node.text))")
        await engine.close()
    }

    @Test("updateChildValues writes several paths atomically; priorities and removes work")
    func updatePriorityRemove() async throws {
        let server = try EngineTestServer(seed: #"{"a":{"x":1,"y":2,"z":3}}"#)
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/a")
        #expect(await events.wait(forCount: 1), "no initial value")
        let done = TestRecorder<DatabaseError?>()
        try await engine.updateChildValues(
            [(Path("x"), try node("10")), (Path("y"), .empty), (Path("w/deep"), try node("true"))], at: "/a"
        ) { done.append($0) }
        try await engine.setPriority(.int(7), at: "/a/z") { done.append($0) }
        try await engine.removeValue(at: "/a/z") { done.append($0) }
        #expect(await done.wait(forCount: 3), "missing completions")
        #expect(done.items.allSatisfy { $0 == nil })
        #expect(try await server.value(at: "/a") == #"{"w":{"deep":true},"x":10}"#)
        #expect(events.items.last?.node.text == #"{"w":{"deep":true},"x":10}"#)
        await engine.close()
    }

    @Test("invalid writes throw before anything happens")
    func invalidWritesThrow() async throws {
        let server = try EngineTestServer()
        let (engine, _) = server.makeEngine(startsOnline: false)
        await #expect(throws: DatabaseError.self) { try await engine.setValue(try node("1"), at: "/.info/x") }
        await #expect(throws: DatabaseError.self) {
            try await engine.updateChildValues([(Path("a"), try node("1")), (Path("a/b"), try node("2"))], at: "/")
        }
        #expect(await engine.pendingWriteCount == 0)
        await engine.close()
    }

    @Test("a server timestamp is resolved locally with the server offset, and by the server")
    func serverTimestamp() async throws {
        let server = try EngineTestServer()
        let (engine, _) = server.makeEngine()
        #expect(await engine.waitUntilConnected())
        let (events, _) = await engine.observe("/t")
        #expect(await events.wait(forCount: 1))
        let done = TestRecorder<DatabaseError?>()
        try await engine.setValue(Node(leaf: .serverValue(.timestamp)), at: "/t") { done.append($0) }
        #expect(await done.wait(forCount: 1))
        let local = events.items.dropFirst().first?.node.leafValue
        guard case .int(let localTime)? = local else {
            Issue.record("the local event did not carry a resolved timestamp: \(String(describing: local))")
            return
        }
        let estimate = engine.serverClock.now()
        #expect(abs(estimate - localTime) < 60_000)
        let stored = try await server.value(at: "/t")
        #expect(Int64(stored) != nil, "the server did not resolve the timestamp: \(stored)")
        await engine.close()
    }

    @Test("pending writes are visible: count, statuses and waitForPendingWrites")
    func pendingWriteVisibility() async throws {
        let server = try EngineTestServer()
        let (engine, _) = server.makeEngine(startsOnline: false)
        let statuses = await engine.writeStatuses()
        let collected = TestRecorder<WriteStatus>()
        let reader = Task { for await status in statuses { collected.append(status) } }
        _ = try await engine.set("1", at: "/p/1")
        _ = try await engine.set("2", at: "/p/2")
        #expect(await engine.pendingWriteCount == 2)
        await engine.goOnline()
        await engine.waitForPendingWrites()
        #expect(await engine.pendingWriteCount == 0)
        #expect(await collected.wait(forCount: 4), "statuses: \(collected.items.count)")
        let acknowledged = collected.items.filter {
            if case .acknowledged = $0.state { return true }
            return false
        }
        #expect(acknowledged.map(\.path) == [Path("/p/1"), Path("/p/2")])
        reader.cancel()
        await engine.close()
    }
}
