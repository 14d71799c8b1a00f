import Canopy
import Foundation
import Testing

/// The presence sample: a connections list and a last-online time kept by onDisconnect
/// operations (`onDisconnectRemoveValue`, `onDisconnectSetValue(ServerValue.timestamp())`),
/// driven by `.info/connected`, watched by a second client while the first goes offline and
/// back online.
public enum PresenceScenario {
    /// Runs the scenario against `server` with a phone and a watcher.
    public static func run(on server: some ScenarioServer) async throws {
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
}
