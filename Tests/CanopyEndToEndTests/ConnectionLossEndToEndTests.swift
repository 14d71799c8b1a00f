import Canopy
import CanopyScenarios
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lost connections against a `canopy serve` process: a client going offline and back, the
/// server restarting under connected clients, and a client process killed outright.
@Suite struct ConnectionLossEndToEndTests {
    /// Logs the values of `.info/connected` for `database`.
    private func connectionStates(of database: Database) -> EventLog<Bool> {
        let states = EventLog<Bool>()
        database.reference(withPath: ".info/connected").observe(.value) { states.append($0.boolValue == true) }
        return states
    }

    @Test func writesMadeOfflineLandOnceOnReconnect() async throws {
        let server = try await ServeProcess(namespace: "offline")
        let client = server.database()
        let watcher = server.database()
        let connected = connectionStates(of: client)
        _ = try await connected.first(within: 30, "connected") { $0 }
        try await client.reference(withPath: "counter").setValue(0)
        let counts = EventLog<Int>()
        watcher.reference(withPath: "counter").observe(.value) { counts.append($0.intValue ?? -1) }
        #expect(try await counts.first(within: 30) { $0 == 0 } == 0)

        client.goOffline()
        _ = try await connected.first(within: 30, "disconnected") { !$0 }
        let counter = client.reference(withPath: "counter")
        let entry = client.reference(withPath: "log").childByAutoId()
        // Posted in order, before the read below.
        let acks = EventLog<String>()
        counter.setValue(ServerValue.increment(1)) { error, _ in acks.append("counter \(error.map { "\($0)" } ?? "ok")")
        }
        entry.setValue("written offline") { error, _ in acks.append("entry \(error.map { "\($0)" } ?? "ok")") }
        // The client's own view has the writes at once.
        #expect(try await entry.getData().value as? String == "written offline")

        client.goOnline()
        #expect(
            try await acks.next(2, within: 30, "the offline writes to be acknowledged") == ["counter ok", "entry ok"])
        #expect(try await counts.next(within: 30) == 1)
        // A later write on the same connection is applied after any duplicate would have been.
        try await client.reference(withPath: "marker").setValue(true)
        #expect(try await server.value(at: "counter") == "1")
        #expect(try await server.value(at: "log") == #"{"\#(entry.key ?? "")":"written offline"}"#)
        client.goOffline()
        watcher.goOffline()
        await server.stop()
    }

    @Test func clientsReconnectToARestartedServerAndPendingWritesLandOnce() async throws {
        let server = try await ServeProcess(namespace: "restart")
        let writer = server.database()
        let reader = server.database()
        let writerStates = connectionStates(of: writer)
        let readerStates = connectionStates(of: reader)
        try await writer.reference(withPath: "room/before").setValue("kept")
        let room = EventLog<String>()
        reader.reference(withPath: "room").observe(.value) { snapshot in
            room.append(snapshot.children.map { "\($0.key)=\($0.value ?? "null")" }.joined(separator: " "))
        }
        #expect(try await room.first(within: 30) { $0 == "before=kept" } == "before=kept")
        // A limited query, which the server serves as a tagged listen.
        _ = try await writer.reference(withPath: "scores").setValue(["a": 1, "b": 5, "c": 3])
        let top = EventLog<String>()
        let topTwo = reader.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 2)
        topTwo.observe(.childAdded) { top.append("added \($0.key)") }
        topTwo.observe(.childRemoved) { top.append("removed \($0.key)") }
        #expect(try await top.next(2, within: 30) == ["added c", "added b"])
        // The orderly shutdown runs onDisconnect operations (and keeps their result).
        _ = try await writer.reference(withPath: "status/writer").onDisconnectSetValue("offline")
        _ = try await writer.reference(withPath: "status/writer").setValue("online")

        #expect(try await server.terminate() == 0)
        _ = try await writerStates.first(within: 30, "the writer to notice") { !$0 }
        _ = try await readerStates.first(within: 30, "the reader to notice") { !$0 }

        // Writes made while the server is down wait for it.
        let counter = writer.reference(withPath: "room/counter")
        let during = writer.reference(withPath: "room/during")
        let pending = Task {
            async let first: DatabaseReference = counter.setValue(ServerValue.increment(1))
            async let second: DatabaseReference = counter.setValue(ServerValue.increment(1))
            async let third: DatabaseReference = during.setValue("queued")
            _ = try await (first, second, third)
        }

        try await server.restart()
        _ = try await writerStates.first(within: 60, "the writer to reconnect") { $0 }
        _ = try await readerStates.first(within: 60, "the reader to reconnect") { $0 }
        try await withDeadline(60, "the pending writes to be acknowledged") { try await pending.value }
        // The reader's listener resumed by itself.
        let expected = "before=kept counter=2 during=queued"
        #expect(try await room.first(within: 30) { $0 == expected } == expected)
        _ = try await writer.reference(withPath: "scores/d").setValue(10)
        #expect(try await top.next(2, within: 30) == ["removed c", "added d"])
        _ = try await writer.reference(withPath: "marker").setValue(true)
        #expect(try await server.value(at: "room") == #"{"before":"kept","counter":2,"during":"queued"}"#)
        #expect(try await server.value(at: "status/writer") == #""offline""#)
        writer.goOffline()
        reader.goOffline()
        await server.stop()
    }

    @Test func acknowledgedWritesSurviveAServerKilledWithSIGKILL() async throws {
        let server = try await ServeProcess(namespace: "crash")
        let client = server.database()
        let states = connectionStates(of: client)
        let items = client.reference(withPath: "items")
        for index in 0..<20 {
            _ = try await items.child("i\(index)").setValue(["n": index, "label": "item \(index) ✓"])
        }
        _ = try await items.child("i3").removeValue()
        _ = try await items.updateChildValues(["i4/n": 40, "i5": NSNull()])
        let expected = try await server.value(at: "items")

        try await server.kill()
        _ = try await states.first(within: 30, "the client to notice") { !$0 }
        let pending = client.reference(withPath: "later")
        let acknowledged = EventLog<String>()
        pending.setValue("queued") { error, _ in acknowledged.append(error.map { "\($0)" } ?? "ok") }
        try await server.restart()
        #expect(try await acknowledged.next(within: 60, "the queued write after the restart") == "ok")
        #expect(try await server.value(at: "items") == expected)
        #expect(try await server.value(at: "later") == #""queued""#)
        client.goOffline()
        await server.stop()
    }

    @Test func onDisconnectRunsWhenAClientProcessIsKilled() async throws {
        let server = try await ServeProcess(namespace: "killed")
        let watcher = server.database()
        let status = EventLog<String>()
        watcher.reference(withPath: "status/k1").observe(.value) { status.append($0.stringValue ?? "null") }
        let presence = EventLog<Bool>()
        watcher.reference(withPath: "presence/k1").observe(.value) { presence.append($0.exists()) }
        #expect(try await status.next(within: 30) == "null")

        let client = try ChildProcess(
            "canopy-test-client", override: "CANOPY_TEST_CLIENT", arguments: [server.url, "k1"])
        _ = try await client.line(startingWith: "ready")
        #expect(try await status.first(within: 30) { $0 == "online" } == "online")
        #expect(try await presence.first(within: 30) { $0 } == true)

        client.send(signal: SIGKILL)
        try await client.exitStatus()
        #expect(try await status.first(within: 30) { $0 == "offline" } == "offline")
        #expect(try await presence.first(within: 30) { !$0 } == false)
        #expect(try await server.value(at: "presence") == "null")
        watcher.goOffline()
        await server.stop()
    }
}
