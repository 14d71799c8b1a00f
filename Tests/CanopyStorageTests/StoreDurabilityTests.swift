import CanopyStorage
import CanopyTestSupport
import CanopyTree
import Dispatch
import Foundation
import Testing

/// Kills `canopy-storage-crasher` with SIGKILL at random moments while it writes, then checks
/// that the store opens and holds every acknowledged write: exactly the tree after the last
/// acknowledged write, or after one more (a write can be durable before its ack is printed).
@Suite struct StoreDurabilityTests {
    /// A write the test sends to the crasher and applies to its own reference tree.
    private enum ScriptedWrite {
        case overwrite(Path, Node)
        case merge(Path, [(Path, Node)])

        func applied(to root: Node) -> Node {
            switch self {
            case .overwrite(let path, let node): return root.updating(at: path, node)
            case .merge(let base, let children):
                return children.reduce(root) { $0.updating(at: base.child($1.0), $1.1) }
            }
        }

        /// The crasher's input line.
        var line: String {
            switch self {
            case .overwrite(let path, let node):
                return JSONValue.object([JSONMember("p", .string(path.wireString)), JSONMember("o", node.exportJSON())])
                    .serialized()
            case .merge(let base, let children):
                let members = children.map { JSONMember($0.0.serverString, $0.1.exportJSON()) }
                return JSONValue.object([JSONMember("p", .string(base.wireString)), JSONMember("m", .object(members))])
                    .serialized()
            }
        }
    }

    /// A varied, reproducible sequence of writes: counters, a growing log with deletions,
    /// multi-path updates, priorities and occasional large subtrees.
    private struct Workload {
        var random: SeededGenerator
        var index = 0

        mutating func next() -> ScriptedWrite {
            index += 1
            let i = Int64(index)
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                let counter = ChildKey("c\(Int.random(in: 0..<5, using: &random))")
                let priority: LeafValue? = Bool.random(using: &random) ? .int(i) : nil
                return .overwrite(Path(keys: ["counters", counter]), Node(leaf: .int(i), priority: priority))
            case 2, 3:
                return .overwrite(
                    Path(keys: ["log", ChildKey("e\(index)")]),
                    tree([("n", leaf(i)), ("text", leaf("entry \(index) ✓"))]))
            case 4:
                return .overwrite(
                    Path(keys: ["log", ChildKey("e\(index - Int.random(in: 1...8, using: &random))")]), .empty)
            case 5, 6:
                let user = { (random: inout SeededGenerator) in ChildKey("u\(Int.random(in: 0..<6, using: &random))") }
                return .merge(
                    "users",
                    [
                        (Path(keys: [user(&random), "score"]), leaf(i)),
                        (
                            Path(keys: [user(&random)]),
                            Bool.random(using: &random) ? .empty : tree([("name", leaf("n\(index)"))])
                        ),
                        (Path(keys: ["meta", "last"]), leaf(i)),
                    ])
            case 7:
                let user = ChildKey("u\(Int.random(in: 0..<6, using: &random))")
                return .overwrite(Path(keys: ["users", user, .priority]), leaf(.string("p\(index)")))
            case 8:
                let entries = (0..<30).map { ("k\($0)", leaf(.double(Double(index) + Double($0) / 8))) }
                return .overwrite("bulk", tree(entries, priority: .int(i)))
            default:
                return .overwrite(
                    Path(keys: ["bulk", ChildKey("k\(Int.random(in: 0..<30, using: &random))")]), leaf(i))
            }
        }
    }

    /// The crasher binary, built next to the test bundle (the test target depends on it).
    private static func crasherURL() -> URL? {
        var directories = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        ]
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return directories.map { $0.appendingPathComponent("canopy-storage-crasher") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private static func open(_ backend: String, at location: URL) throws -> any TreeStore {
        switch backend {
        case "sqlite": return try SQLiteTreeStore(path: location.path)
        case "sqlite-normal": return try SQLiteTreeStore(path: location.path, synchronous: .normal)
        default: return try JSONFileTreeStore(directory: location.path)
        }
    }

    @Test(arguments: [("sqlite", UInt64(0x5EED_0001)), ("sqlite-normal", 0x5EED_0002), ("json", 0x5EED_0003)])
    func acknowledgedWritesSurviveSIGKILL(_ backend: String, _ seed: UInt64) throws {
        guard let crasher = Self.crasherURL() else {
            Issue.record(
                "canopy-storage-crasher was not found next to the test bundle; build with `swift build --build-tests`")
            return
        }
        // Writing to the stdin of a killed child must fail with EPIPE, not kill the test.
        signal(SIGPIPE, SIG_IGN)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = directory.appendingPathComponent(backend == "json" ? "store" : "tree.sqlite")

        var random = SeededGenerator(seed: seed)
        var workload = Workload(random: SeededGenerator(seed: seed ^ 0xABCDEF))
        var state = Node.empty
        let rounds = 30
        for round in 0..<rounds {
            let writes = (0..<25).map { _ in workload.next() }
            var expected = [state]
            for write in writes { expected.append(write.applied(to: expected[expected.count - 1])) }
            // -1: kill as soon as it starts (while opening); 0…25: after that many acks (25:
            // while it closes and, for JSON, compacts).
            let killAfter = Int.random(in: -1...writes.count, using: &random)

            let run = try CrasherRun(
                crasher: crasher, arguments: [backend, location.path],
                input: writes.map(\.line).joined(separator: "\n") + "\n")
            if killAfter >= 0 {
                try run.waitForLine(killAfter == 0 ? "open" : "ack \(killAfter)", orAny: ["done"])
            }
            let output = run.killAndCollect()
            #expect(!run.timedOut, "round \(round): the crasher did not answer in time")
            #expect(!output.errors.contains("error"), "round \(round): \(output.errors)")
            let acknowledged = output.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? 0
            #expect(acknowledged >= max(killAfter, 0), "round \(round): fewer acks than waited for")

            let store = try Self.open(backend, at: location)
            let found = try store.read(at: .root)
            let candidates = [acknowledged, acknowledged + 1].filter { $0 < expected.count }
            guard let applied = candidates.first(where: { expected[$0] == found }) else {
                Issue.record(
                    "round \(round): the store after \(acknowledged) acknowledged writes matches no allowed state")
                store.close()
                return
            }
            #expect(store.stats() == TreeStoreStats(tree: found), "round \(round): stats disagree with the tree")
            store.close()
            // The next round starts from what the store holds.
            state = expected[applied]
        }
        #expect(try Self.open(backend, at: location).read(at: .root) == state)
    }
}

/// One run of the crasher with its input written up front and its output read as it comes.
private final class CrasherRun {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = ""
    private let watchdog: DispatchWorkItem
    private let timeoutFlag = TimeoutFlag()

    /// Whether the watchdog had to kill the crasher.
    var timedOut: Bool { timeoutFlag.isSet }

    init(crasher: URL, arguments: [String], input: String) throws {
        process.executableURL = crasher
        process.arguments = arguments
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The whole input fits in the pipe's buffer, so this does not block.
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let pid = process.processIdentifier
        let flag = timeoutFlag
        watchdog = DispatchWorkItem {
            flag.set()
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
    }

    /// Reads output until a line equal to `line` or to one of `others` arrives, or the output
    /// ends.
    func waitForLine(_ line: String, orAny others: [String]) throws {
        let wanted = Set([line] + others)
        while true {
            if buffer.split(separator: "\n").contains(where: { wanted.contains(String($0)) }) { return }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return }
            buffer += String(decoding: data, as: UTF8.self)
        }
    }

    /// Kills the crasher with SIGKILL (if still running) and returns all of its output.
    func killAndCollect() -> (lines: [String], errors: String) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        watchdog.cancel()
        buffer += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (buffer.split(separator: "\n").map(String.init), errorText)
    }
}

/// A flag the watchdog sets from another thread.
private final class TimeoutFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}
