import Canopy
import Foundation
import Testing

/// Transaction options and outcomes against an in-process server.
@Suite struct TransactionTests {
    @Test func withoutLocalEventsOnlyTheCommittedValueIsSeen() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let counter = database.reference(withPath: "counter")
        let marker = database.reference(withPath: "marker")
        try await counter.setValue(5)
        let log = EventLog<String>()
        counter.observe(.value) { log.append("counter \($0.intValue ?? -1)") }
        marker.observe(.value) { log.append("marker \($0.intValue ?? -1)") }
        #expect(Set(try await log.next(2)) == ["counter 5", "marker -1"])

        database.goOffline()
        let outcome = EventLog<String>()
        counter.runTransactionBlock(
            { data in
                data.value = (data.value as? Int ?? 0) + 1
                return .success(withValue: data)
            },
            andCompletionBlock: { error, committed, snapshot in
                outcome.append("\(error == nil) \(committed) \(snapshot?.intValue ?? -1)")
            }, withLocalEvents: false)
        send(1, to: marker)
        // The marker's local event comes first: the transaction raised nothing locally.
        #expect(try await log.next() == "marker 1")

        database.goOnline()
        #expect(try await outcome.next() == "true true 6")
        #expect(try await log.first(where: { $0.hasPrefix("counter") }) == "counter 6")
        #expect(try await server.value(at: "counter") == "6")
    }

    @Test func withLocalEventsTheEstimateIsSeenAtOnce() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let counter = database.reference(withPath: "counter")
        try await counter.setValue(5)
        let log = EventLog<String>()
        counter.observe(.value) { log.append("counter \($0.intValue ?? -1)") }
        #expect(try await log.next() == "counter 5")
        database.goOffline()
        counter.runTransactionBlock(
            { data in
                data.value = (data.value as? Int ?? 0) + 1
                return .success(withValue: data)
            }, andCompletionBlock: { _, _, _ in })
        #expect(try await log.next() == "counter 6")
        database.goOnline()
        let (committed, snapshot) = try await counter.runTransactionBlock { data in
            data.value = (data.value as? Int ?? 0) + 10
            return .success(withValue: data)
        }
        #expect(committed)
        #expect(snapshot.intValue == 16)
        #expect(try await server.value(at: "counter") == "16")
    }

    @Test func aSetAfterAQueuedTransactionWins() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let ref = database.reference(withPath: "item")
        try await ref.setValue(1)
        database.goOffline()
        let outcome = EventLog<String>()
        ref.runTransactionBlock(
            { data in
                data.value = 2
                return .success(withValue: data)
            },
            andCompletionBlock: { error, committed, _ in
                let code = (error as? DatabaseError)?.code
                outcome.append(error == nil ? "nil \(committed)" : "\(code.map { "\($0)" } ?? "other") \(committed)")
            })
        send(3, to: ref)
        database.goOnline()
        // Either the transaction's put reached the server first and counts as committed, or
        // the set overrode it (client-design.md §9.5); never both, never neither.
        let result = try await outcome.next()
        #expect(result == "nil true" || result == "overriddenBySet false", "\(result)")
        await database.waitForPendingWrites()
        #expect(try await server.value(at: "item") == "3")
    }
}
