import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire
import Testing

@Suite("ServerNamespace")
struct ServerNamespaceTests {
    let alice = ServerSessionID("alice")
    let bob = ServerSessionID("bob")
    let auth = ConnectionAuth.unauthenticated

    func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    func makeNamespace(_ initial: String = "null") throws -> ServerNamespace {
        let store = MemoryTreeStore(root: try Node(json: try json(initial)))
        return try ServerNamespace(name: "test", store: store, clock: { 1_700_000_000_000 })
    }

    func body(_ response: ServerResponse) -> String {
        response.jsonValue.serialized()
    }

    @Test func listenPushesCurrentDataThenAnswersOK() async throws {
        let ns = try makeNamespace(#"{"rooms":{"r1":{"title":"hi"}}}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        let response = await ns.listen(session: alice, path: "/rooms/r1", query: nil, tag: nil, auth: auth)
        #expect(body(response) == #"{"s":"ok","d":{}}"#)
        #expect(log.take() == [#"d rooms/r1 {"title":"hi"}"#])
        let empty = await ns.listen(session: alice, path: "/nothing", query: nil, tag: nil, auth: auth)
        #expect(empty.status == .ok)
        #expect(log.take() == ["d nothing null"])
    }

    @Test func putFansOutToEveryOverlappingListenInOrder() async throws {
        let ns = try makeNamespace(#"{"a":{"b":1,"c":2},"x":1}"#)
        let mine = PushLog()
        let theirs = PushLog()
        await ns.open(session: alice, sink: mine.sink)
        await ns.open(session: bob, sink: theirs.sink)
        _ = await ns.listen(session: alice, path: "/a", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(session: bob, path: "/a/b", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(session: bob, path: "/x", query: nil, tag: nil, auth: auth)
        _ = mine.take()
        _ = theirs.take()

        // At or below a listen: the write itself.
        #expect(
            body(await ns.put(session: alice, path: "/a/b", data: .int(5), hash: nil, auth: auth)) == #"{"s":"ok"}"#)
        #expect(mine.take() == ["d a/b 5"])
        #expect(theirs.take() == ["d a/b 5"])

        // Above a listen: the listen location's new value; unchanged locations get nothing.
        _ = await ns.put(session: bob, path: "/a", data: try json(#"{"b":5,"d":true}"#), hash: nil, auth: auth)
        #expect(mine.take() == [#"d a {"b":5,"d":true}"#])
        #expect(theirs.take() == [])

        // A write elsewhere reaches nobody listening at /a.
        _ = await ns.put(session: alice, path: "/x", data: .string("y"), hash: nil, auth: auth)
        #expect(mine.take() == [])
        #expect(theirs.take() == [#"d x "y""#])

        // Deletion pushes null.
        _ = await ns.put(session: alice, path: "/a/b", data: .null, hash: nil, auth: auth)
        #expect(mine.take() == ["d a/b null"])
        #expect(theirs.take() == ["d a/b null"])
        #expect(await ns.value(at: "/a").exportJSON().serialized() == #"{"d":true}"#)
    }

    @Test func priorityWritesPushTheNodeInExportForm() async throws {
        let ns = try makeNamespace(#"{"a":{"b":1}}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        _ = await ns.listen(session: alice, path: "/", query: nil, tag: nil, auth: auth)
        _ = log.take()
        _ = await ns.put(session: alice, path: "/a/b/.priority", data: .int(5), hash: nil, auth: auth)
        #expect(log.take() == [#"d a/b {".value":1,".priority":5}"#])
    }

    @Test func mergeIsAtomicAndPushedAsMergeOrAtTheListen() async throws {
        let ns = try makeNamespace(#"{"a":{"b":1,"c":2},"z":0}"#)
        let root = PushLog()
        let below = PushLog()
        let leaf = PushLog()
        await ns.open(session: alice, sink: root.sink)
        await ns.open(session: bob, sink: below.sink)
        let carol = ServerSessionID("carol")
        await ns.open(session: carol, sink: leaf.sink)
        _ = await ns.listen(session: alice, path: "/", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(session: bob, path: "/a", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(session: carol, path: "/a/c/deep", query: nil, tag: nil, auth: auth)
        _ = root.take()
        _ = below.take()
        _ = leaf.take()

        let update = try json(#"{"a/b":10,"a/c":null,"z":{"q":1}}"#)
        #expect(body(await ns.merge(session: alice, path: "/", children: update, auth: auth)) == #"{"s":"ok"}"#)
        #expect(root.take() == [#"m / {"a/b":10,"a/c":null,"z":{"q":1}}"#])
        #expect(below.take() == [#"m a {"b":10,"c":null}"#])
        #expect(leaf.take() == [])  // /a/c/deep was already empty
        #expect(await ns.value(at: "/").exportJSON().serialized() == #"{"a":{"b":10},"z":{"q":1}}"#)
    }

    @Test func invalidMergeWritesNothing() async throws {
        let ns = try makeNamespace(#"{"a":1}"#)
        await ns.open(session: alice, sink: PushLog().sink)
        let overlapping = await ns.merge(session: alice, path: "/", children: try json(#"{"a":2,"a/b":3}"#), auth: auth)
        #expect(overlapping.status == .invalidData)
        let badKey = await ns.merge(session: alice, path: "/", children: try json(#"{"a":2,"b":{"c$":1}}"#), auth: auth)
        #expect(badKey.status == .invalidData)
        #expect(await ns.value(at: "/a") == Node(leaf: .int(1)))
    }

    @Test func compareAndSetComparesTheSimpleHash() async throws {
        let ns = try makeNamespace(#"{"counter":12}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        _ = await ns.listen(session: alice, path: "/counter", query: nil, tag: nil, auth: auth)
        _ = log.take()
        // Hash of 10 (stale): refused, nothing written or pushed.
        let stale = await ns.put(
            session: alice, path: "/counter", data: .int(11), hash: "+r5aI9HvKKagELki8SYKBk0q7D4=", auth: auth)
        #expect(stale.status == .dataStale)
        #expect(stale.reason != nil)
        #expect(log.take() == [])
        #expect(await ns.value(at: "/counter") == Node(leaf: .int(12)))
        // Hash of 12: committed.
        let fresh = await ns.put(
            session: alice, path: "/counter", data: .int(13), hash: "faLmDyyRLmn84BABqn7M8fPeH54=", auth: auth)
        #expect(fresh.status == .ok)
        #expect(log.take() == ["d counter 13"])
        // The empty hash means "expected empty".
        #expect(await ns.put(session: alice, path: "/new", data: .int(1), hash: "", auth: auth).status == .ok)
        #expect(await ns.put(session: alice, path: "/new", data: .int(2), hash: "", auth: auth).status == .dataStale)
    }

    @Test func limitToLastWindowStaysFullAsChildrenEnterAndLeave() async throws {
        let ns = try makeNamespace(#"{"scores":{"amy":{"points":10},"bob":{"points":40},"eve":{"points":90}}}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        let query = try json(#"{"l":2,"vf":"r","i":"points"}"#)
        let response = await ns.listen(session: alice, path: "/scores", query: query, tag: 1, auth: auth)
        #expect(body(response) == #"{"s":"ok","d":{}}"#)
        #expect(log.take() == [#"d scores {"bob":{"points":40},"eve":{"points":90}} t1"#])

        // A new top score pushes bob out.
        _ = await ns.put(session: alice, path: "/scores/zed", data: try json(#"{"points":100}"#), hash: nil, auth: auth)
        #expect(log.take() == [#"d scores {"eve":{"points":90},"zed":{"points":100}} t1"#])

        // A change outside the window does not alter the result: no push.
        _ = await ns.put(session: alice, path: "/scores/amy/points", data: .int(11), hash: nil, auth: auth)
        #expect(log.take() == [])

        // Removing a child of the window pulls the next one in.
        _ = await ns.put(session: alice, path: "/scores/zed", data: .null, hash: nil, auth: auth)
        #expect(log.take() == [#"d scores {"bob":{"points":40},"eve":{"points":90}} t1"#])

        // A write above the query location is filtered too.
        _ = await ns.put(
            session: alice, path: "/", data: try json(#"{"scores":{"q":{"points":1}}}"#), hash: nil, auth: auth)
        #expect(log.take() == [#"d scores {"q":{"points":1}} t1"#])

        // Unlisten stops the pushes.
        #expect(body(await ns.unlisten(session: alice, path: "/scores", tag: 1)) == #"{"s":"ok"}"#)
        _ = await ns.put(session: alice, path: "/scores/r", data: try json(#"{"points":5}"#), hash: nil, auth: auth)
        #expect(log.take() == [])
    }

    @Test func defaultAndTaggedListensAtOnePathAreSeparate() async throws {
        let ns = try makeNamespace(#"{"s":{"a":1,"b":2,"c":3}}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        _ = await ns.listen(session: alice, path: "/s", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(
            session: alice, path: "/s", query: try json(#"{"l":1,"vf":"l","i":".key"}"#), tag: 7, auth: auth)
        #expect(log.take() == [#"d s {"a":1,"b":2,"c":3}"#, #"d s {"a":1} t7"#])
        _ = await ns.put(session: alice, path: "/s/a", data: .null, hash: nil, auth: auth)
        #expect(log.take() == ["d s/a null", #"d s {"b":2} t7"#])
        _ = await ns.unlisten(session: alice, path: "/s", tag: nil)
        _ = await ns.put(session: alice, path: "/s/b", data: .int(9), hash: nil, auth: auth)
        #expect(log.take() == [#"d s {"b":9} t7"#])
    }

    @Test func getIsFilteredByItsQuery() async throws {
        let ns = try makeNamespace(#"{"s":{"a":1,"b":2,"c":3}}"#)
        #expect(
            body(await ns.get(path: "/s", query: .object([]), auth: auth)) == #"{"s":"ok","d":{"a":1,"b":2,"c":3}}"#)
        let query = try json(#"{"i":".value","sp":2,"sin":true}"#)
        #expect(body(await ns.get(path: "/s", query: query, auth: auth)) == #"{"s":"ok","d":{"b":2,"c":3}}"#)
        #expect(body(await ns.get(path: "/none", query: .object([]), auth: auth)) == #"{"s":"ok","d":null}"#)
    }

    @Test func infoAndInvalidDataAreRefused() async throws {
        let ns = try makeNamespace()
        await ns.open(session: alice, sink: PushLog().sink)
        let denied = #"{"s":"permission_denied","d":"Permission denied"}"#
        #expect(
            body(await ns.put(session: alice, path: "/.info/connected", data: .bool(true), hash: nil, auth: auth))
                == denied)
        #expect(
            body(await ns.listen(session: alice, path: "/.info/connected", query: nil, tag: nil, auth: auth)) == denied)
        #expect(body(await ns.get(path: "/.info", query: .object([]), auth: auth)) == denied)
        #expect(await ns.put(session: alice, path: "/a$b", data: .int(1), hash: nil, auth: auth).status == .invalidData)
        #expect(
            await ns.put(session: alice, path: "/a", data: try json(#"{"b.c":1}"#), hash: nil, auth: auth).status
                == .invalidData)
        #expect(
            await ns.put(session: alice, path: "/a", data: try json(#"{".sv":"nope"}"#), hash: nil, auth: auth).status
                == .invalidData)
        #expect(await ns.value(at: "/") == .empty)
    }

    @Test func onDisconnectRunsInOrderOnCloseAndCancelDropsOperations() async throws {
        let ns = try makeNamespace(#"{"presence":{"alice":"online","bob":"online"},"rooms":{"r1":{"x":1}}}"#)
        let watcher = PushLog()
        await ns.open(session: bob, sink: watcher.sink)
        _ = await ns.listen(session: bob, path: "/", query: nil, tag: nil, auth: auth)
        _ = watcher.take()

        await ns.open(session: alice, sink: PushLog().sink)
        #expect(
            await ns.onDisconnectPut(session: alice, path: "/presence/alice", data: .string("offline"), auth: auth)
                .status == .ok)
        #expect(
            await ns.onDisconnectMerge(
                session: alice, path: "/rooms/r1", children: try json(#"{"x":null,"left":true}"#), auth: auth
            ).status == .ok)
        #expect(await ns.onDisconnectPut(session: alice, path: "/gone", data: .int(1), auth: auth).status == .ok)
        #expect(await ns.onDisconnectCancel(session: alice, path: "/gone").status == .ok)
        #expect(
            await ns.onDisconnectPut(session: alice, path: "/.info/x", data: .int(1), auth: auth).status
                == .permissionDenied)
        #expect(
            await ns.onDisconnectPut(session: alice, path: "/bad", data: try json(#"{"a#":1}"#), auth: auth).status
                == .invalidData)
        #expect(watcher.take() == [])  // nothing runs while connected

        await ns.close(session: alice)
        #expect(watcher.take() == [#"d presence/alice "offline""#, "d rooms/r1/x null", "d rooms/r1/left true"])
        #expect(await ns.value(at: "/gone") == .empty)
        // They run once.
        await ns.close(session: alice)
        #expect(watcher.take() == [])
    }

    @Test func serverValuesAreResolvedWhenTheWriteIsApplied() async throws {
        let ns = try makeNamespace(#"{"n":5}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        _ = await ns.listen(session: alice, path: "/", query: nil, tag: nil, auth: auth)
        _ = log.take()
        _ = await ns.put(session: alice, path: "/t", data: try json(#"{".sv":"timestamp"}"#), hash: nil, auth: auth)
        _ = await ns.put(session: alice, path: "/n", data: try json(#"{".sv":{"increment":2}}"#), hash: nil, auth: auth)
        _ = await ns.merge(
            session: alice, path: "/",
            children: try json(#"{"n":{".sv":{"increment":1.5}},"m":{".sv":{"increment":1}}}"#), auth: auth)
        _ = await ns.put(
            session: alice, path: "/p", data: try json(#"{".value":1,".priority":{".sv":"timestamp"}}"#), hash: nil,
            auth: auth)
        #expect(
            log.take() == [
                "d t 1700000000000", "d n 7", #"m / {"n":8.5,"m":1}"#,
                #"d p {".value":1,".priority":1700000000000}"#,
            ])
        #expect(await ns.value(at: "/n") == Node(leaf: .double(8.5)))
    }

    @Test func largerWindowsGetPerChildPushesLeavingFirst() async throws {
        let ns = try makeNamespace(#"{"m":{"a":1,"b":2,"c":3,"d":4,"e":5}}"#)
        let log = PushLog()
        await ns.open(session: alice, sink: log.sink)
        let query = try json(#"{"i":".value","l":3,"vf":"r"}"#)
        _ = await ns.listen(session: alice, path: "/m", query: query, tag: 2, auth: auth)
        #expect(log.take() == [#"d m {"c":3,"d":4,"e":5} t2"#])
        // A change in place: only that child.
        _ = await ns.put(session: alice, path: "/m/d", data: .int(40), hash: nil, auth: auth)
        #expect(log.take() == ["d m/d 40 t2"])
        // One enters, one leaves: the leaving child first.
        _ = await ns.put(session: alice, path: "/m/f", data: .int(50), hash: nil, auth: auth)
        #expect(log.take() == ["d m/c null t2", "d m/f 50 t2"])
        // A removal refilled from outside the window.
        _ = await ns.put(session: alice, path: "/m/d", data: .null, hash: nil, auth: auth)
        #expect(log.take() == ["d m/d null t2", "d m/c 3 t2"])
        // Most of the window changes: the whole result.
        _ = await ns.merge(session: alice, path: "/m", children: try json(#"{"e":0,"f":0,"c":0}"#), auth: auth)
        #expect(log.take() == [#"d m {"a":1,"b":2,"f":0} t2"#])  // ties by key: c, e, f, then a, b
        // The location becomes a leaf: the (empty) result as a whole.
        _ = await ns.put(session: alice, path: "/m", data: .string("flat"), hash: nil, auth: auth)
        #expect(log.take() == ["d m null t2"])
    }

    @Test func closingOneConnectionLeavesTheOthersServedInOrder() async throws {
        let ns = try makeNamespace()
        let logs = (0..<3).map { _ in PushLog() }
        let ids = ["s0", "s1", "s2"].map(ServerSessionID.init)
        for (id, log) in zip(ids, logs) {
            await ns.open(session: id, sink: log.sink)
            _ = await ns.listen(session: id, path: "/k", query: nil, tag: nil, auth: auth)
            _ = log.take()
        }
        await ns.close(session: ids[1])
        #expect(await ns.isOpen(session: ids[1]) == false)
        #expect(await ns.isOpen(session: ids[2]))
        _ = await ns.put(session: ids[2], path: "/k", data: .int(1), hash: nil, auth: auth)
        #expect(logs.map { $0.take() } == [["d k 1"], [], ["d k 1"]])
        // The last connection's own requests still reach its own state.
        #expect(await ns.onDisconnectPut(session: ids[2], path: "/k", data: .null, auth: auth).status == .ok)
        await ns.close(session: ids[2])
        #expect(logs[0].take() == ["d k null"])
    }
}
