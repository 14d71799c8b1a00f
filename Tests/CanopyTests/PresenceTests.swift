import Canopy
import Foundation
import Testing

/// The presence sample: a connections list and a last-online time kept by onDisconnect
/// operations, driven by `.info/connected`.
@Suite struct PresenceTests {
    @Test func connectionsAndLastOnline() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        try await PresenceScenario.run(on: server)
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
