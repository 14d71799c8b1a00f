import CanopyScenarios
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An executable built next to the test bundle, running as a child process: its standard
/// output as awaitable lines, its standard error kept for failure messages, its exit awaitable.
final class ChildProcess: @unchecked Sendable {
    // `Process` is only touched through its thread-safe members (pid, signals, handlers).
    private let process: Process
    /// Lines printed on standard output.
    let output = EventLog<String>()
    private let exits = EventLog<Int32>()
    private let state = State()

    /// What the handlers record: standard error and the exit status.
    private final class State: Sendable {
        let errorText = Mutex("")
        let status = Mutex<Int32?>(nil)
    }

    /// Starts `name` (found next to the test bundle, or at the path in the environment
    /// variable `override`) with `arguments`.
    init(_ name: String, override: String, arguments: [String]) throws {
        process = Process()
        process.executableURL = try Self.executable(named: name, override: override)
        process.arguments = arguments
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardOutput = standardOutput
        process.standardError = standardError
        let output = self.output
        let pending = Mutex("")
        Self.read(standardOutput.fileHandleForReading) { data in
            let lines = pending.withLock { pending in
                pending += String(decoding: data, as: UTF8.self)
                var lines = pending.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                pending = lines.removeLast()
                return lines
            }
            for line in lines { output.append(line) }
        } atEnd: {
            output.append(Self.endOfOutput)
        }
        let state = self.state
        Self.read(standardError.fileHandleForReading) { data in
            state.errorText.withLock { $0 += String(decoding: data, as: UTF8.self) }
        } atEnd: {
        }
        let exits = self.exits
        process.terminationHandler = { process in
            state.status.withLock { $0 = process.terminationStatus }
            exits.append(process.terminationStatus)
        }
        try process.run()
    }

    deinit {
        // A test that failed before stopping its process must not leave it running.
        send(signal: SIGKILL)
    }

    /// What the process printed on standard error so far.
    var standardError: String { state.errorText.withLock { $0 } }

    /// Sends `signal` (SIGTERM, SIGKILL) to the process, unless it has exited.
    func send(signal: Int32) {
        state.status.withLock { status in
            if status == nil { _ = kill(process.processIdentifier, signal) }
        }
    }

    /// The first output line with `prefix`; fails loudly (with the process's standard error)
    /// after `seconds`.
    func line(startingWith prefix: String, within seconds: Double = 30) async throws -> String {
        var skipped: [String] = []
        while true {
            let line: String
            do {
                line = try await output.next(within: seconds, "a line starting with \"\(prefix)\"")
            } catch {
                throw TestTimeout(description: "\(error); output: \(skipped); standard error: \(standardError)")
            }
            if line.hasPrefix(prefix) { return line }
            if line == Self.endOfOutput {
                throw TestTimeout(
                    description: "the process ended its output without a line starting with \"\(prefix)\"; "
                        + "output: \(skipped); standard error: \(standardError)")
            }
            skipped.append(line)
        }
    }

    /// Waits for the process to exit; answers its exit status (or signal number).
    @discardableResult
    func exitStatus(within seconds: Double = 30) async throws -> Int32 {
        if let status = state.status.withLock({ $0 }) { return status }
        return try await exits.next(within: seconds, "process exit")
    }

    /// Reads `handle` on a thread of its own until the end of the file, handing each chunk
    /// to `receive` (blocking reads rather than readability handlers, whose cancellation races
    /// in swift-corelibs-foundation).
    private static func read(
        _ handle: FileHandle, _ receive: @escaping @Sendable (Data) -> Void, atEnd: @escaping @Sendable () -> Void
    ) {
        Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                receive(data)
            }
            atEnd()
        }.start()
    }

    /// Logged after the last line of standard output.
    private static let endOfOutput = "\u{0}end of output"

    /// The executable `name`, built next to the test bundle (the test target depends on it),
    /// or the path in the environment variable `override`.
    static func executable(named name: String, override: String) throws -> URL {
        if let path = ProcessInfo.processInfo.environment[override] { return URL(fileURLWithPath: path) }
        var directories = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        guard
            let found = directories.map({ $0.appendingPathComponent(name) })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else {
            throw TestTimeout(
                description: "\(name) was not found next to the test bundle; run `swift build --build-tests`")
        }
        return found
    }
}
