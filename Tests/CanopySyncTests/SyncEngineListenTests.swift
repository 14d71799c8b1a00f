import CanopyServer
import CanopySync
import CanopyTree
import CanopyWire
import Testing

@Suite("SyncEngine listens against a loopback server")
struct SyncEngineListenTests {
    @Test("two engines see each other's writes")
    func twoEngines() async throws {
        let server = try EngineTestServer()
        let (alice, _) = server.makeEngine()
        let (bob, _) = server.makeEngine()
        let (aliceEvents, _) = await alice.observe("/chat", [.childAdded])
        let (bobEvents, _) = await bob.observe("/chat", [.childAdded])
        _ = try await alice.set(#""hi bob""#, at: "/chat/1")
        _ = try await bob.set(#""hi alice""#, at: "/chat/2")
        // Each engine sees its own write at once and the other's when it arrives, in either
        // order; each child is added exactly once.
        let expected: Set<String> = [#""hi bob""#, #""hi alice""#]
        #expect(
            await aliceEvents.wait { Set($0.map(\.node.text)) == expected },
            "alice: \(aliceEvents.items.map(\.node.text))")
        #expect(
            await bobEvents.wait { Set($0.map(\.node.text)) == expected }, "bob: \(bobEvents.items.map(\.node.text))")
        #expect(aliceEvents.items.count == 2)
        #expect(bobEvents.items.count == 2)
        await alice.close()
        await bob.close()
    }

    @Test("listens on the wire follow shadowing: a parent listen replaces the child's, removal restores it")
    func listenShadowing() async throws {
        let server = try EngineTestServer(seed: #"{"a":{"b":{"c":1}}}"#)
        let (engine, transports) = server.makeEngine()
        #expect(await engine.waitUntilConnected())
        let (child, childHandle) = await engine.observe("/a/b")
        #expect(await child.wait(forCount: 1))
        let (parent, parentHandle) = await engine.observe("/a")
        #expect(await parent.wait(forCount: 1))
        await engine.removeObserver(withHandle: parentHandle)
        await engine.removeObserver(withHandle: childHandle)
        let expected = ["q /a/b", "q /a", "n /a/b", "q /a/b", "n /a", "n /a/b"]
        #expect(
            await transports.requests.wait { listenLog($0) == expected },
            "listens on the wire: \(listenLog(transports.requests.items))")
        await engine.close()
    }

    @Test("a filtered query listens with a tag and its data arrives tagged")
    func taggedQuery() async throws {
        let server = try EngineTestServer(seed: #"{"s":{"a":{"n":3},"b":{"n":1},"c":{"n":2}}}"#)
        let (engine, transports) = server.makeEngine()
        let params = try QueryParams.default.ordered(byChild: "n").limited(toFirst: 2)
        let (events, _) = await engine.observe("/s", [.value], params: params)
        #expect(
            await events.wait { $0.last?.node.text == #"{"b":{"n":1},"c":{"n":2}}"# },
            "\(events.items.map(\.node.text))")
        let listen = transports.requests.items.compactMap { request -> ListenRequest? in
            if case .listen(let listen) = request { return listen }
            return nil
        }.first
        #expect(listen?.tag == 1)
        #expect(listen?.query != nil)
        let (other, _) = server.makeEngine()
        _ = try await other.set(#"{"n":0}"#, at: "/s/d")
        #expect(
            await events.wait { $0.last?.node.text == #"{"b":{"n":1},"d":{"n":0}}"# },
            "\(events.items.map(\.node.text))")
        await engine.close()
        await other.close()
    }

    @Test("a refused listen cancels its observers with permission denied")
    func refusedListenCancels() async throws {
        let server = try EngineTestServer(policy: LockedPolicy())
        let (engine, _) = server.makeEngine()
        let cancels = TestRecorder<DatabaseError>()
        let (events, _) = await engine.observe("/locked", cancels: cancels)
        #expect(await cancels.wait(forCount: 1), "no cancel event")
        #expect(cancels.items.first?.code == .permissionDenied)
        #expect(events.items.isEmpty)
        #expect(await engine.observerCount == 0)
        await engine.close()
    }

    @Test("removeAllObservers keeps keepSynced pins, which are counted per query")
    func removeAllKeepsPins() async throws {
        let server = try EngineTestServer(seed: #"{"k":1}"#)
        let (engine, transports) = server.makeEngine()
        try await engine.keepSynced(QuerySpec(path: "/k"), true)
        try await engine.keepSynced(QuerySpec(path: "/k"), true)
        let (first, _) = await engine.observe("/k")
        let (second, _) = await engine.observe("/k", [.value, .childAdded])
        #expect(await first.wait(forCount: 1))
        #expect(await second.wait(forCount: 1))
        await engine.removeAllObservers(for: QuerySpec(path: "/k"))
        #expect(await engine.observerCount == 0)
        #expect(await engine.pinCount(for: QuerySpec(path: "/k")) == 2)
        // The pins keep the view: a single value event is answered from memory.
        let single = TestRecorder<RaisedEvent>()
        await engine.addObserver(
            ObserverRegistration(eventTypes: [.value], isSingleEvent: true, onEvent: { single.append($0) }),
            for: QuerySpec(path: "/k"))
        #expect(await single.wait(forCount: 1))
        #expect(single.items.first?.node.text == "1")
        // Pins are counted: the first unpin leaves one, so the listen stays.
        try await engine.keepSynced(QuerySpec(path: "/k"), false)
        #expect(await engine.pinnedQueries == [QuerySpec(path: "/k")])
        #expect(await engine.pinCount(for: QuerySpec(path: "/k")) == 1)
        try await engine.keepSynced(QuerySpec(path: "/k"), false)
        #expect(await engine.pinnedQueries.isEmpty)
        #expect(
            await transports.requests.wait { listenLog($0) == ["q /k", "n /k"] },
            "\(listenLog(transports.requests.items))")
        // Unpinning below zero does nothing; a later pin listens again.
        try await engine.keepSynced(QuerySpec(path: "/k"), false)
        #expect(await engine.pinCount(for: QuerySpec(path: "/k")) == 0)
        try await engine.keepSynced(QuerySpec(path: "/k"), true)
        #expect(
            await transports.requests.wait { listenLog($0) == ["q /k", "n /k", "q /k"] },
            "\(listenLog(transports.requests.items))")
        #expect(!transports.requests.items.contains { $0.action == "g" })
        await #expect(throws: DatabaseError.self) {
            try await engine.keepSynced(QuerySpec(path: "/.info/connected"), true)
        }
        await engine.close()
    }

    @Test("a single-event observer gets exactly one event and is removed")
    func singleEvent() async throws {
        let server = try EngineTestServer(seed: #"{"s":{"a":1,"b":2}}"#)
        let (engine, _) = server.makeEngine()
        let events = TestRecorder<RaisedEvent>()
        let registration = ObserverRegistration(eventTypes: [.childAdded], isSingleEvent: true) { events.append($0) }
        await engine.addObserver(registration, for: QuerySpec(path: "/s"))
        #expect(await events.wait(forCount: 1))
        _ = try await engine.set("3", at: "/s/c")
        let (all, _) = await engine.observe("/s")
        #expect(await all.wait { $0.last?.node.text == #"{"a":1,"b":2,"c":3}"# })
        #expect(events.items.count == 1)
        #expect(events.items.first?.path == Path("/s/a"))
        await engine.close()
    }

    @Test("offline, a single value event fires at once from a complete cache; .info reads locally")
    func singleValueOffline() async throws {
        let server = try EngineTestServer(seed: #"{"c":1}"#)
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe("/c")
        #expect(await events.wait(forCount: 1))
        await engine.goOffline()
        let single = TestRecorder<RaisedEvent>()
        let registration = ObserverRegistration(eventTypes: [.value], isSingleEvent: true) { single.append($0) }
        await engine.addObserver(registration, for: QuerySpec(path: "/c"))
        #expect(await single.wait(forCount: 1))
        #expect(single.items.first?.node.text == "1")
        #expect(try await engine.getData(QuerySpec(path: "/.info/connected")).text == "false")
        await engine.close()
    }

    @Test(".info/connected goes false → true → false → true across goOffline and goOnline")
    func infoConnected() async throws {
        let server = try EngineTestServer()
        let (engine, _) = server.makeEngine()
        let (events, _) = await engine.observe(".info/connected")
        #expect(await events.wait { $0.map(\.node.text) == ["false", "true"] }, "\(events.items.map(\.node.text))")
        await engine.goOffline()
        #expect(await events.wait { $0.map(\.node.text) == ["false", "true", "false"] })
        #expect(await !engine.isConnected)
        await engine.goOnline()
        #expect(await events.wait { $0.map(\.node.text) == ["false", "true", "false", "true"] })
        let (offset, _) = await engine.observe(".info/serverTimeOffset")
        #expect(await offset.wait(forCount: 1))
        #expect(offset.items.first?.node.leafValue?.isNumber == true)
        await engine.close()
    }
}

/// The listens and unlistens in a request log, as `q /path` and `n /path`.
func listenLog(_ requests: [ClientRequest]) -> [String] {
    requests.compactMap { request in
        switch request {
        case .listen(let listen): return "q \(listen.path.wireString)"
        case .unlisten(let path, _, _): return "n \(path.wireString)"
        default: return nil
        }
    }
}
