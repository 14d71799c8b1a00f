import Canopy
import Foundation
import Testing

/// The presence sample: a connections list and a last-online time kept by onDisconnect
/// operations, driven by `.info/connected`.
@Suite struct PresenceTests {
    @Test func connectionsAndLastOnline() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let phone = server.database()
        let watcher = server.database()
        let user = phone.reference(withPath: "users/ann")
        let connections = user.child("connections")
        let lastOnline = user.child("lastOnline")

        // The app's presence code, run each time .info/connected becomes true.
        let connectedStates = EventLog<Bool>()
        let registered = EventLog<String>()
        phone.reference(withPath: ".info/connected").observe(.value) { snapshot in
            let connected = snapshot.value as? Bool ?? false
            connectedStates.append(connected)
            guard connected else { return }
            let connection = connections.childByAutoId()
            connection.onDisconnectRemoveValue { error, _ in
                lastOnline.onDisconnectSetValue(ServerValue.timestamp()) { error2, _ in
                    connection.setValue(true) { error3, _ in
                        registered.append("\(error == nil && error2 == nil && error3 == nil) \(connection.key ?? "")")
                    }
                }
            }
        }
        #expect(try await connectedStates.first(where: { $0 }) == true)
        let registration = try await registered.next()
        #expect(registration.hasPrefix("true "))
        let connectionKey = String(registration.dropFirst(5))

        // Another client sees the connection.
        let seen = EventLog<String>()
        watcher.reference(withPath: "users/ann").observe(.value) { snapshot in
            let keys = snapshot.childSnapshot(forPath: "connections").children.map(\.key)
            let last = snapshot.childSnapshot(forPath: "lastOnline").value as? Int64
            seen.append("\(keys) \(last.map { _ in "set" } ?? "unset")")
        }
        #expect(try await seen.first(where: { $0.contains(connectionKey) }) == "[\"\(connectionKey)\"] unset")

        // The phone goes offline: its connection entry disappears and lastOnline is set.
        phone.goOffline()
        #expect(try await connectedStates.first(where: { !$0 }) == false)
        #expect(try await seen.first(where: { $0.hasSuffix(" set") }) == "[] set")
        let stored = try await server.value(at: "users/ann/lastOnline")
        let ms = try #require(Int64(stored))
        #expect(abs(Double(ms) / 1000 - Date().timeIntervalSince1970) < 600)

        // Back online: a new connection entry appears.
        phone.goOnline()
        #expect(try await connectedStates.first(where: { $0 }) == true)
        let second = try await registered.next()
        #expect(second.hasPrefix("true "))
        #expect(second != registration)
        #expect(try await seen.first(where: { $0.hasPrefix("[\"") }).contains(String(second.dropFirst(5))))
    }

    @Test func cancelledOnDisconnectOperationsDoNotRun() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let client = server.database()
        let status = client.reference(withPath: "status")
        try await status.setValue("online")
        try await status.onDisconnectSetValue("offline")
        try await status.child("detail").onDisconnectUpdateChildValues(["reason": "gone"])
        try await status.cancelDisconnectOperations()
        try await client.reference(withPath: "other").onDisconnectRemoveValue()
        try await client.reference(withPath: "other").setValue(1)
        client.goOffline()
        // The `other` removal ran; the cancelled status operations did not.
        let observer = server.database()
        let gone = try await withDeadline(20, "the onDisconnect removal") {
            try await observer.reference(withPath: "other").values.first { !$0.exists() }
        }
        #expect(gone?.exists() == false)
        #expect(try await server.value(at: "other") == "null")
        #expect(try await server.value(at: "status") == "\"online\"")
    }
}
