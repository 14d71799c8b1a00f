import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire
import Testing

@testable import CanopyWebSocket

/// The server engine served over a real websocket listener on 127.0.0.1, driven by the
/// websocket client transport with protocol frames written by hand.
@Suite struct ServerOverWebSocketTests {
    @Test func helloPutAndListenOverRealWebSockets() async throws {
        let server = CanopyServer(configuration: .init(clock: { 1_700_000_000_000 })) { _ in MemoryTreeStore() }
        let listener = try await WebSocketListener.start(configuration: .init(logger: .silent))
        let serving = Task { await server.serve(listener) }
        defer {
            serving.cancel()
            Task { await listener.stop() }
        }
        let client = WebSocketClientTransport(configuration: .init(logger: .silent))
        let events = Inbox(client.events)
        await client.connect(to: ConnectionTarget(host: "127.0.0.1:\(listener.port)", namespace: "e2e"))
        #expect(try await events.next("opened") == .opened)

        guard case .frame(let hello) = try await events.next("hello") else {
            Issue.record("expected the hello frame")
            return
        }
        #expect(hello.contains(#""t":"h""#))
        #expect(hello.contains(#""h":"127.0.0.1:\#(listener.port)""#))
        #expect(hello.contains(#""ts":1700000000000"#))

        await client.send(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/greeting","h":""}}}"#)
        await client.send(#"{"t":"d","d":{"r":2,"a":"p","b":{"p":"/greeting","d":"hi"}}}"#)
        var frames: [String] = []
        while !frames.contains(where: { $0.contains(#""r":2"#) }) {
            guard case .frame(let frame) = try await events.next("responses to listen and put") else {
                Issue.record("connection ended early")
                return
            }
            frames.append(frame)
        }
        #expect(frames.contains { $0.contains(#""r":1"#) && $0.contains(#""s":"ok""#) })
        #expect(frames.contains { $0.contains(#""r":2"#) && $0.contains(#""s":"ok""#) })
        #expect(frames.contains { $0.contains(#""a":"d""#) && $0.contains(#""d":"hi""#) })
        let stored = try await server.namespace(named: "e2e").value(at: Path("/greeting"))
        #expect(stored.exportJSON() == .string("hi"))

        await client.close()
        #expect(try await events.next("close") == .closed(.closedLocally))
    }
}
