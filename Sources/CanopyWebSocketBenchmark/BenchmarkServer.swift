import CanopyServer
import CanopyStorage
import CanopyWebSocket
import CanopyWire
import Foundation

/// The server side of the benchmark, run in a child process so its memory can be read
/// alone, all on 127.0.0.1: a CanopyServer on one websocket listener, an echo service on
/// another (the same stack: listener, connection events, a task sending back), and the raw
/// libwebsockets echo (``RawEchoServer``). Prints `ports <canopy> <echo> <raw echo>` and
/// serves until its standard input closes.
enum BenchmarkServer {
    static func run() async throws {
        FileDescriptorLimit.raise()
        let server = CanopyServer(configuration: .init()) { _ in MemoryTreeStore() }
        let canopyListener = try await WebSocketListener.start(configuration: .init(logger: .silent))
        let echoListener = try await WebSocketListener.start(configuration: .init(logger: .silent))
        let serving = Task { await server.serve(canopyListener) }
        let echoing = Task {
            await withDiscardingTaskGroup { group in
                for await connection in echoListener.connections {
                    group.addTask {
                        for await event in connection.events {
                            if case .frame(let frame) = event { connection.send(frame) }
                        }
                    }
                }
            }
        }
        guard let rawEchoPort = RawEchoServer.start() else {
            FileHandle.standardOutput.write(Data("FAIL: the raw libwebsockets echo did not start\n".utf8))
            return
        }
        FileHandle.standardOutput.write(
            Data("ports \(canopyListener.port) \(echoListener.port) \(rawEchoPort)\n".utf8))
        // Serve until the parent closes our standard input (or exits).
        await Task.detached {
            while readLine() != nil {}
        }.value
        serving.cancel()
        echoing.cancel()
        await canopyListener.close()
        await echoListener.close()
    }
}
