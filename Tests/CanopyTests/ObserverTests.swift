import Foundation
import Testing

@testable import Canopy

/// Attaching and detaching observers, and the async sequences built on them.
@Suite struct ObserverTests {
    @Test func removingOneObserverKeepsTheOthers() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let ref = database.reference(withPath: "x")
        let marker = database.reference(withPath: "marker")
        let log = EventLog<String>()
        let first = ref.observe(.value) { log.append("first \($0.value as? Int ?? -1)") }
        ref.observe(.value) { log.append("second \($0.value as? Int ?? -1)") }
        let child = ref.child("child").observe(.value) { log.append("child \($0.value as? Int ?? -1)") }
        marker.observe(.value) { log.append("marker \($0.value as? Int ?? -1)") }
        #expect(Set(try await log.next(4)) == ["first -1", "second -1", "child -1", "marker -1"])

        try await ref.setValue(1)
        #expect(try await log.next(2) == ["first 1", "second 1"])
        ref.removeObserver(withHandle: first)
        try await ref.setValue(2)
        try await marker.setValue(1)
        // `first` is gone; the marker's event comes right after `second`'s.
        #expect(try await log.next(2) == ["second 2", "marker 1"])

        // removeAllObservers on the parent leaves the child's observer (and the marker).
        ref.removeAllObservers()
        try await ref.setValue(["child": 3])
        try await marker.setValue(2)
        #expect(try await log.next() == "child 3")
        #expect(try await log.next() == "marker 2")
        ref.child("child").removeObserver(withHandle: child)
        _ = await database.pendingWriteCount
        #expect(await database.engine.observerCount == 1)
    }

    @Test func eventsBetweenRemovalsAreExact() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let ref = database.reference(withPath: "x")
        let log = EventLog<String>()
        let first = ref.observe(.value) { log.append("first \($0.value as? Int ?? -1)") }
        ref.observe(.value) { log.append("second \($0.value as? Int ?? -1)") }
        #expect(try await log.next(2) == ["first -1", "second -1"])
        try await ref.setValue(1)
        #expect(try await log.next(2) == ["first 1", "second 1"])
        ref.removeObserver(withHandle: first)
        try await ref.setValue(2)
        #expect(try await log.next() == "second 2")
        ref.removeAllObservers()
        let child = database.reference(withPath: "x/y")
        child.observe(.value) { log.append("child \($0.value as? Int ?? -1)") }
        try await ref.setValue(["y": 5])
        #expect(try await log.next() == "child 5")
        _ = await database.pendingWriteCount
        #expect(await database.engine.observerCount == 1)
    }

    @Test func valueStreamEndsAndDetachesWhenTheTaskIsCancelled() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let ref = database.reference(withPath: "ticker")
        let received = EventLog<Int>()
        let consumer = Task {
            for try await snapshot in ref.values {
                received.append(snapshot.intValue ?? -1)
            }
            return "ended"
        }
        #expect(try await received.next() == -1)
        try await ref.setValue(1)
        #expect(try await received.next() == 1)
        consumer.cancel()
        let outcome = try await withDeadline(20, "the consumer to end") { try await consumer.value }
        #expect(outcome == "ended")
        _ = await database.pendingWriteCount
        #expect(await database.engine.observerCount == 0)
    }

    @Test func childEventStreamDeliversPreviousKeys() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let ref = database.reference(withPath: "list")
        let consumer = Task {
            var seen: [String] = []
            for try await (snapshot, previous) in ref.queryOrderedByKey().events(.childAdded) {
                seen.append("\(snapshot.key)<\(previous ?? "-")")
                if seen.count == 3 { break }
            }
            return seen
        }
        try await ref.child("b").setValue(1)
        try await ref.child("a").setValue(1)
        try await ref.child("c").setValue(1)
        let seen = try await withDeadline(20, "three child_added events") { try await consumer.value }
        #expect(seen == ["b<-", "a<-", "c<b"])
        _ = await database.pendingWriteCount
        #expect(await database.engine.observerCount == 0)
    }

    @Test func singleEventsAndGetData() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let writer = server.database()
        try await writer.reference(withPath: "a").setValue(["b": 1, "c": 2])
        let reader = server.database()
        let (first, previous) = try await reader.reference(withPath: "a").observeSingleEventAndPreviousSiblingKey(
            of: .childAdded)
        #expect(first.key == "b")
        #expect(previous == nil)
        let value = try await reader.reference(withPath: "a/c").getData()
        #expect(value.value as? Int == 2)
        let log = EventLog<String>()
        reader.reference(withPath: "a").observeSingleEvent(of: .value) { log.append("value \($0.childrenCount)") }
        #expect(try await log.next() == "value 2")
        reader.reference(withPath: "a/b").getData { error, snapshot in
            log.append("get \(error == nil) \(snapshot?.intValue ?? -1)")
        }
        #expect(try await log.next() == "get true 1")
        _ = await reader.pendingWriteCount
        #expect(await reader.engine.observerCount == 0)
    }

    @Test func getDataOfflineAnswersFromTheCacheOrFails() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let writer = server.database()
        try await writer.reference(withPath: "g").setValue(5)
        let reader = server.database()
        let log = EventLog<Int>()
        let handle = reader.reference(withPath: "g").observe(.value) { log.append($0.intValue ?? -1) }
        #expect(try await log.next() == 5)
        reader.goOffline()
        // Offline with the value cached: answered at once, although the wait is 30 s.
        let cached = try await withDeadline(20, "a cached read") {
            try await reader.reference(withPath: "g").getData()
        }
        #expect(cached.intValue == 5)
        reader.reference(withPath: "g").removeObserver(withHandle: handle)

        let offline = server.database()
        offline.getOfflineTimeout = .milliseconds(200)
        offline.goOffline()
        await #expect {
            _ = try await offline.reference(withPath: "g").getData()
        } throws: { error in
            (error as? DatabaseError)?.code == .offline
        }
    }
}
