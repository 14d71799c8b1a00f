import Canopy
import Foundation
import Testing

/// Several independent clients on one server.
@Suite struct MultiClientTests {
    @Test func tenClientsTwentyTransactionalIncrementsEach() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let clients = (0..<10).map { _ in server.database() }
        let increment: @Sendable (MutableData) -> TransactionResult = { data in
            data.value = ((data.value as? Int) ?? 0) + 1
            return .success(withValue: data)
        }
        let commits = try await withDeadline(300, "200 transactions") {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for client in clients {
                    group.addTask {
                        let counter = client.reference(withPath: "counter")
                        var committed = 0
                        for _ in 0..<20 {
                            // A transaction that keeps losing may give up with `maxretry`; the
                            // app's answer is to run it again. Nothing may be lost or doubled.
                            while true {
                                do {
                                    let (didCommit, _) = try await counter.runTransactionBlock(increment)
                                    if didCommit { committed += 1 }
                                    break
                                } catch let error as DatabaseError where error.code == .maxRetries {
                                    continue
                                }
                            }
                        }
                        return committed
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(commits == 200)
        #expect(try await server.value(at: "counter") == "200")
        // Every client converges on the final value.
        for client in clients {
            let value = try await client.reference(withPath: "counter").getData()
            #expect(value.intValue == 200)
        }
    }

    @Test func writesFromOneClientReachAnotherInOrder() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let writer = server.database()
        let reader = server.database()
        let log = EventLog<Int>()
        reader.reference(withPath: "seq").observe(.value) { snapshot in
            if let value = snapshot.intValue { log.append(value) }
        }
        for value in 1...20 { send(value, to: writer.reference(withPath: "seq")) }
        await writer.waitForPendingWrites()
        #expect(await writer.pendingWriteCount == 0)
        var last = 0
        while last < 20 {
            let value = try await log.next()
            #expect(value > last)
            last = value
        }
    }

    @Test func pendingWriteStatusesAndPurge() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let statusLog = EventLog<String>()
        let statuses = database.writeStatuses()
        let forwarding = Task {
            for await status in statuses {
                switch status.state {
                case .pending: statusLog.append("\(status.ref.key ?? "/") pending")
                case .acknowledged: statusLog.append("\(status.ref.key ?? "/") acknowledged")
                case .failed(let error): statusLog.append("\(status.ref.key ?? "/") failed \(error.code.status)")
                }
            }
        }
        defer { forwarding.cancel() }
        try await database.reference(withPath: "a").setValue(1)
        #expect(try await statusLog.next(2) == ["a pending", "a acknowledged"])

        database.goOffline()
        let log = EventLog<String>()
        database.reference(withPath: "b").setValue(2) { error, _ in
            log.append("\((error as? DatabaseError)?.code == .writeCanceled)")
        }
        #expect(await database.pendingWriteCount == 1)
        #expect(try await statusLog.next() == "b pending")
        database.purgeOutstandingWrites()
        #expect(try await log.next() == "true")
        #expect(try await statusLog.next() == "b failed write_canceled")
        #expect(await database.pendingWriteCount == 0)
        await database.waitForPendingWrites()
        #expect(try await server.value(at: "b") == "null")
    }
}
