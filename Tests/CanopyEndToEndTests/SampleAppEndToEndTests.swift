import Canopy
import CanopyScenarios
import CanopyWebSocket
import Testing

/// The sample apps against a `canopy serve` process, over real websockets on 127.0.0.1.
@Suite struct SampleAppEndToEndTests {
    @Test func blogApp() async throws {
        let server = try await ServeProcess(namespace: "blog")
        try await BlogScenario.run(on: server)
        await server.stop()
    }

    @Test func dinosaurScores() async throws {
        let server = try await ServeProcess(namespace: "dinosaurs", backend: "json")
        try await DinosaurScenario.run(on: server)
        await server.stop()
    }

    @Test func emulatorModeClientOfAProductionURL() async throws {
        let server = try await ServeProcess(namespace: "my-app")
        let database = Database(
            url: "https://my-app.firebaseio.com", transportFactory: WebSocketClientTransportFactory())
        database.useEmulator(withHost: "127.0.0.1", port: server.port)
        _ = try await database.reference(withPath: "greeting").setValue("hello")
        #expect(try await server.value(at: "greeting") == #""hello""#)
        #expect(try await database.reference(withPath: ".info/connected").getData().boolValue == true)

        // Messages over 16384 characters are split into frames both ways, at character boundaries.
        let large = String(repeating: "é😀a", count: 30_000)
        _ = try await database.reference(withPath: "large").setValue(large)
        let reader = server.database()
        #expect(try await reader.reference(withPath: "large").getData().value as? String == large)
        reader.goOffline()
        database.goOffline()
        await server.stop()
    }

    @Test func presence() async throws {
        let server = try await ServeProcess(namespace: "presence")
        try await PresenceScenario.run(on: server)
        await server.stop()
    }
}
