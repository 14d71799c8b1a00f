import CanopyServer
import CanopyStorage
import CanopyWebSocket
import CanopyWire
import Foundation

/// The server side of the benchmark, run in a child process so its memory can be read
/// alone: a CanopyServer on one websocket listener and an echo service on another, both on
/// 127.0.0.1. Prints `ports <canopy> <echo>` and serves until its standard input closes.
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
        FileHandle.standardOutput.write(Data("ports \(canopyListener.port) \(echoListener.port)\n".utf8))
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
