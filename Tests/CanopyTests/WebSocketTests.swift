import Canopy
import CanopyServer
import CanopyStorage
import CanopyWebSocket
import Foundation
import Testing

/// The shared instances of `Database.database(url:)` over real websockets on 127.0.0.1.
@Suite struct WebSocketTests {
    @Test func sharedInstanceOverWebSockets() async throws {
        let listener = try await WebSocketListener.start(configuration: .init(logger: .silent))
        let server = CanopyServer { _ in MemoryTreeStore() }
        let serving = Task { await server.serve(listener) }
        defer {
            Task {
                await server.shutdown()
                await listener.stop()
                serving.cancel()
            }
        }
        let url = "http://127.0.0.1:\(listener.port)?ns=ws"
        let database = Database.database(url: url)
        #expect(Database.database(url: url) === database)
        let ref = database.reference(withPath: "greeting")
        let log = EventLog<String>()
        ref.observe(.value) { snapshot in log.append(snapshot.stringValue ?? "null") }
        #expect(try await log.next(within: 30) == "null")
        try await ref.setValue("hello")
        #expect(try await log.next(within: 30) == "hello")
        #expect(
            try await server.namespace(named: "ws").value(at: "greeting").exportJSON().serialized() == "\"hello\"")
        let connected = try await database.reference(withPath: ".info/connected").getData()
        #expect(connected.boolValue == true)
        ref.removeAllObservers()
        database.goOffline()
    }
}
