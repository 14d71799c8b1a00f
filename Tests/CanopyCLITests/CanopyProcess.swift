import Foundation

/// A run of the `canopy` executable built next to the test bundle, with its output read as it
/// arrives. A watchdog kills the process after `timeout` seconds, so every wait on its output
/// or its exit is bounded: a hung process fails the test instead of hanging it.
final class CanopyProcess: @unchecked Sendable {
    /// What a finished process left.
    struct Outcome: Sendable {
        /// The exit status (or the signal number for a process killed by a signal).
        var status: Int32
        /// Everything written to standard output.
        var output: String
        /// Everything written to standard error.
        var errors: String
        /// Whether the watchdog had to kill the process.
        var timedOut: Bool

        /// Standard output without the trailing newline.
        var text: String {
            output.hasSuffix("\n") ? String(output.dropLast()) : output
        }
    }

    private let process = Process()
    private let lock = NSLock()
    private var outputBuffer = ""
    private var errorBuffer = ""
    private var outputEnded = false
    private var errorEnded = false
    private var killedByWatchdog = false
    private var lineWaiters: [(count: Int, continuation: CheckedContinuation<[String], Never>)] = []
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []
    private var exited = false

    /// The `canopy` binary, built next to the test bundle (the test target depends on it).
    static let executable: URL? = {
        var directories = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        ]
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return directories.map { $0.appendingPathComponent("canopy") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Starts `canopy arguments…` with `input` on its standard input.
    init(_ arguments: [String], input: String = "", directory: URL? = nil, timeout: Double = 60) throws {
        guard let executable = Self.executable else { throw MissingExecutable() }
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        // Close-on-exec pipes: a process spawned concurrently by another test must not
        // inherit these ends, or this process's output would never reach end of file.
        let stdin = try ClosingPipe()
        let stdout = try ClosingPipe()
        let stderr = try ClosingPipe()
        process.standardInput = stdin.reading
        process.standardOutput = stdout.writing
        process.standardError = stderr.writing
        process.terminationHandler = { [weak self] _ in self?.didExit() }
        try process.run()
        try? stdin.reading.close()
        try? stdout.writing.close()
        try? stderr.writing.close()
        // Blocking reads on dedicated threads: each ends at end of file.
        for (handle, isError) in [(stdout.reading, false), (stderr.reading, true)] {
            Thread.detachNewThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    received(Data(buffer[0..<count]), isError: isError)
                }
                received(Data(), isError: isError)
                try? handle.close()
            }
        }
        try? stdin.writing.write(contentsOf: Data(input.utf8))
        try? stdin.writing.close()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            guard let self, self.lock.withLock({ !self.exited }) else { return }
            self.lock.withLock { self.killedByWatchdog = true }
            kill(pid, SIGKILL)
        }
    }

    /// Runs `canopy arguments…` to completion.
    static func run(_ arguments: [String], input: String = "", timeout: Double = 60) async throws -> Outcome {
        try await CanopyProcess(arguments, input: input, timeout: timeout).finish()
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits until standard output holds at least `count` lines (or ends) and returns its lines.
    func lines(atLeast count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            let ready: [String]? = lock.withLock {
                let lines = Self.completeLines(outputBuffer)
                if lines.count >= count || outputEnded { return lines }
                lineWaiters.append((count, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the process to exit and returns what it left.
    func finish() async -> Outcome {
        await withCheckedContinuation { continuation in
            let done = lock.withLock {
                if exited && outputEnded && errorEnded { return true }
                exitWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        return lock.withLock {
            Outcome(
                status: process.terminationStatus, output: outputBuffer, errors: errorBuffer,
                timedOut: killedByWatchdog)
        }
    }

    /// Standard error so far.
    var errorsSoFar: String {
        lock.withLock { errorBuffer }
    }

    private func received(_ data: Data, isError: Bool) {
        var resumable: [(CheckedContinuation<[String], Never>, [String])] = []
        var exitResumable: [CheckedContinuation<Void, Never>] = []
        lock.withLock {
            if isError {
                if data.isEmpty { errorEnded = true } else { errorBuffer += String(decoding: data, as: UTF8.self) }
            } else {
                if data.isEmpty { outputEnded = true } else { outputBuffer += String(decoding: data, as: UTF8.self) }
                let lines = Self.completeLines(outputBuffer)
                lineWaiters.removeAll { waiter in
                    guard lines.count >= waiter.count || outputEnded else { return false }
                    resumable.append((waiter.continuation, lines))
                    return true
                }
            }
            exitResumable = takeExitWaiters()
        }
        for (continuation, lines) in resumable { continuation.resume(returning: lines) }
        for continuation in exitResumable { continuation.resume() }
    }

    private func didExit() {
        let waiters = lock.withLock {
            exited = true
            return takeExitWaiters()
        }
        for continuation in waiters { continuation.resume() }
    }

    /// The exit waiters to resume once the process exited and both outputs ended (lock held).
    private func takeExitWaiters() -> [CheckedContinuation<Void, Never>] {
        guard exited && outputEnded && errorEnded else { return [] }
        defer { exitWaiters = [] }
        return exitWaiters
    }

    private static func completeLines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        return lines
    }
}

/// A one-way channel whose both ends are close-on-exec (the child gets its end through
/// `dup2`, which clears the flag on the copy).
private struct ClosingPipe {
    /// The read end.
    let reading: FileHandle
    /// The write end.
    let writing: FileHandle

    init() throws {
        var ends: [Int32] = [-1, -1]
        #if os(Linux)
            // A connected socket pair created close-on-exec atomically (no pipe2 in Glibc's
            // Swift overlay), so no concurrent spawn can inherit it.
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw POSIXError(.EMFILE) }
        #else
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        #endif
        reading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        writing = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    }
}

/// The `canopy` executable was not built next to the test bundle.
struct MissingExecutable: Error, CustomStringConvertible {
    var description: String { "canopy was not found next to the test bundle; build with `swift build --build-tests`" }
}
