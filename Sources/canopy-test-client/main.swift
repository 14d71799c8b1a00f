import Canopy
import Foundation

// Usage: canopy-test-client URL CLIENT-ID
//
// Connects to the database at URL (e.g. `http://127.0.0.1:9000?ns=e2e`), registers two
// onDisconnect operations — remove `presence/CLIENT-ID`, set `status/CLIENT-ID` to
// `"offline"` — then writes `presence/CLIENT-ID = true` and `status/CLIENT-ID = "online"`,
// prints `ready` once the server has acknowledged all four, and waits to be killed.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: canopy-test-client URL CLIENT-ID\n".utf8))
    exit(2)
}
let database = Database.database(url: arguments[1])
let client = arguments[2]
let presence = database.reference(withPath: "presence/\(client)")
let status = database.reference(withPath: "status/\(client)")

/// Registers the onDisconnect operations, then writes the online state.
func register() async throws {
    _ = try await presence.onDisconnectRemoveValue()
    _ = try await status.onDisconnectSetValue("offline")
    _ = try await presence.setValue(true)
    _ = try await status.setValue("online")
}

do {
    try await register()
} catch {
    FileHandle.standardError.write(Data("canopy-test-client: \(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("ready\n".utf8))
while true {
    try await Task.sleep(for: .seconds(3600))
}
