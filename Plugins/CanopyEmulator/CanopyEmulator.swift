import Foundation
import PackagePlugin

/// `swift package canopy-serve [serve options]`: runs a local Canopy server for a package's
/// own tests, configured by `canopy.json` at the package root (see
/// ``EmulatorConfiguration``), the way `firebase emulators:start` reads `firebase.json`.
/// Options given on the command line override the file's. The server runs until interrupted
/// (Ctrl-C or SIGTERM, passed on to it so that it shuts down cleanly).
@main
struct CanopyEmulator: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "canopy")
        let root = context.package.directoryURL
        let configuration = try EmulatorConfiguration(root: root)
        let server = Process()
        server.executableURL = tool.url
        server.arguments = ["serve"] + configuration.serveArguments + arguments
        server.currentDirectoryURL = root
        let forwarding = SignalForwarding(to: server)
        try server.run()
        server.waitUntilExit()
        forwarding.stop()
        if server.terminationReason != .exit || server.terminationStatus != 0 {
            Diagnostics.error("canopy serve exited with status \(server.terminationStatus)")
            throw ServerFailed(status: server.terminationStatus)
        }
    }
}

/// `canopy serve` stopped with a non-zero status.
struct ServerFailed: Error, CustomStringConvertible {
    /// The exit status or signal.
    let status: Int32
    var description: String { "canopy serve exited with status \(status)" }
}

/// Passes SIGINT and SIGTERM received by the plugin on to the server process.
final class SignalForwarding: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    /// Starts forwarding to `process` (once it runs).
    init(to process: Process) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if process.isRunning { kill(process.processIdentifier, number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops forwarding.
    func stop() {
        for source in sources { source.cancel() }
    }
}
