// Measures Canopy over real websockets on 127.0.0.1 against a baseline in the same run:
//
// (a) write → remote listener round trip: one connection writes (`p`), another listens on
//     the location and receives the push — against the round trip of the same frame through
//     a raw libwebsockets echo (echoed from the service thread's callbacks; the baseline the
//     target is set against, ≤ 1.5×), and through an echo over Canopy's own websocket stack
//     (WebSocketListener, connection events, a task sending back). Prints median and p99 of
//     each and the ratios.
// (b) fan-out: 1,000 connections listen on one location, one writer writes; prints the
//     delivered events per second and the server's RSS per idle connection.
//
// The server runs in a child process (this executable with `serve`) so that its memory is
// measured alone. Run with:
//   swift run -c release CanopyWebSocketBenchmark [roundTrips] [connections] [writes]

import CanopyBenchmarkSupport
import Foundation
import Synchronization

if CommandLine.arguments.dropFirst().first == "serve" {
    try await BenchmarkServer.run()
    exit(0)
}

let numbers = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let roundTrips = numbers.first ?? 2000
let connectionCount = numbers.dropFirst().first ?? 1000
let fanOutWrites = numbers.dropFirst(2).first ?? 100
let warmup = 200

Task.detached {
    try await Task.sleep(for: .seconds(900))
    print("FAIL: the benchmark did not finish within 15 minutes")
    exit(2)
}

func format(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let descriptorLimit = FileDescriptorLimit.raise()

// MARK: The server process.

let serverProcess = Process()
serverProcess.executableURL = URL(fileURLWithPath: "/proc/self/exe")
serverProcess.arguments = ["serve"]
let serverInput = Pipe()
let serverOutput = Pipe()
serverProcess.standardInput = serverInput
serverProcess.standardOutput = serverOutput
try serverProcess.run()
let serverPID = String(serverProcess.processIdentifier)
var announcement = Data()
while !announcement.contains(UInt8(ascii: "\n")) {
    let chunk = serverOutput.fileHandleForReading.availableData
    guard !chunk.isEmpty else {
        print("FAIL: the server process ended before announcing its ports")
        exit(1)
    }
    announcement.append(chunk)
}
let ports = String(decoding: announcement, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
guard ports.count == 3 else {
    print("FAIL: unexpected server announcement")
    exit(1)
}
let canopyPort = ports[0]
let echoPort = ports[1]
let rawEchoPort = ports[2]

func serverMemory() -> ProcessMemory {
    guard let memory = ProcessMemory.read(pid: serverPID) else {
        print("FAIL: cannot read /proc/\(serverPID)/status")
        exit(1)
    }
    return memory
}

print(
    "CanopyWebSocketBenchmark: \(roundTrips) round trips (+\(warmup) warm-up), \(connectionCount) listeners × \(fanOutWrites) writes"
)
print("server process \(serverPID): \(serverMemory().summary); open-file limit \(descriptorLimit)")

/// Connects a client to the Canopy listener and reads its hello.
func connectDatabaseClient() async throws -> BenchmarkClient {
    let client = try await BenchmarkClient.connect(port: canopyPort)
    _ = try await client.nextFrame(containing: #""t":"c""#)
    return client
}

/// Sends a listen on `path` as request `number` and waits for its response.
func listen(_ client: BenchmarkClient, path: String, number: Int) async throws {
    await client.send(#"{"t":"d","d":{"r":\#(number),"a":"q","b":{"p":"\#(path)","h":""}}}"#)
    let response = try await client.nextFrame(containing: #""r":\#(number),"#)
    guard response.contains(#""s":"ok""#) else {
        throw BenchmarkClient.Failure(description: "listen refused: \(response)")
    }
}

// MARK: (a) Round trip: write → remote listener vs echo.

let clock = ContinuousClock()
let echoClient = try await BenchmarkClient.connect(port: echoPort)
let rawEchoClient = try await BenchmarkClient.connect(port: rawEchoPort)
let writer = try await connectDatabaseClient()
let roundTripListener = try await connectDatabaseClient()
try await listen(roundTripListener, path: "/rt", number: 1)
var canopyLatency = LatencySample()
var echoLatency = LatencySample()
var rawEchoLatency = LatencySample()
var writeNumber = 1
for iteration in 0..<(warmup + roundTrips) {
    let marker = "v\(iteration)"
    writeNumber += 1
    let put = #"{"t":"d","d":{"r":\#(writeNumber),"a":"p","b":{"p":"/rt","d":"\#(marker)"}}}"#

    // Echo the same frame the writer sends, raw and through the stack.
    let rawEchoStart = clock.now
    await rawEchoClient.send(put)
    _ = try await rawEchoClient.nextFrame(containing: marker)
    let rawEchoTime = clock.now - rawEchoStart

    let echoStart = clock.now
    await echoClient.send(put)
    _ = try await echoClient.nextFrame(containing: marker)
    let echoTime = clock.now - echoStart

    let writeStart = clock.now
    await writer.send(put)
    _ = try await roundTripListener.nextFrame(containing: #""\#(marker)""#)
    let canopyTime = clock.now - writeStart
    _ = try await writer.nextFrame(containing: #""r":\#(writeNumber),"#)

    if iteration >= warmup {
        echoLatency.record(echoTime)
        rawEchoLatency.record(rawEchoTime)
        canopyLatency.record(canopyTime)
    }
}
let ratio = canopyLatency.median / rawEchoLatency.median
func row(_ name: String, _ sample: LatencySample) -> String {
    "    \(name.padding(toLength: 43, withPad: " ", startingAt: 0))\(format(sample.median).leftPadded(10)) \(format(sample.p99).leftPadded(8))"
}
print("(a) round trip over websockets on 127.0.0.1 (µs)      median      p99")
print(row("raw libwebsockets echo (baseline)", rawEchoLatency))
print(row("echo through Canopy's websocket stack", echoLatency))
print(row("Canopy write → remote listener", canopyLatency))
print(
    "    Canopy vs raw echo: median \(format(ratio, 2))×, p99 \(format(canopyLatency.p99 / rawEchoLatency.p99, 2))× "
        + "— target ≤ 1.5×: \(ratio <= 1.5 ? "MET" : "NOT MET")")
print(
    "    Canopy vs stack echo: median \(format(canopyLatency.median / echoLatency.median, 2))×; "
        + "stack echo vs raw echo: median \(format(echoLatency.median / rawEchoLatency.median, 2))×")
await rawEchoClient.close()
await echoClient.close()
await roundTripListener.close()

// MARK: (b) Fan-out: one writer, many listeners.

let beforeConnections = serverMemory()
var listeners: [BenchmarkClient] = []
listeners.reserveCapacity(connectionCount)
let connectStart = clock.now
try await withThrowingTaskGroup(of: BenchmarkClient.self) { group in
    var started = 0
    let parallel = 32
    while started < min(parallel, connectionCount) {
        group.addTask { try await connectDatabaseClient() }
        started += 1
    }
    while let client = try await group.next() {
        listeners.append(client)
        if started < connectionCount {
            group.addTask { try await connectDatabaseClient() }
            started += 1
        }
    }
}
let connectSeconds = seconds(clock.now - connectStart)
let connectedIdle = serverMemory()
try await withThrowingTaskGroup(of: Void.self) { group in
    for (offset, client) in listeners.enumerated() {
        group.addTask { try await listen(client, path: "/fan", number: 1) }
        if offset % 32 == 31 { try await group.next() }
    }
    try await group.waitForAll()
}
let listening = serverMemory()
let perIdle = Double(connectedIdle.residentKB - beforeConnections.residentKB) * 1024 / Double(connectionCount)
let perListening = Double(listening.residentKB - beforeConnections.residentKB) * 1024 / Double(connectionCount)
print("(b) fan-out: \(connectionCount) connections opened in \(format(connectSeconds, 2)) s")
print(
    "    server RSS: before \(ProcessMemory.megabytes(beforeConnections.residentKB)) MB, "
        + "connected \(ProcessMemory.megabytes(connectedIdle.residentKB)) MB, listening \(ProcessMemory.megabytes(listening.residentKB)) MB"
)
print(
    "    server RSS per idle connection: \(format(perIdle / 1024)) KB (with one listen each: \(format(perListening / 1024)) KB)"
)

let delivered = Atomic<Int>(0)
let (finished, finish) = AsyncStream.makeStream(of: Void.self)
let receivers = Task {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for client in listeners {
            group.addTask {
                for _ in 0..<fanOutWrites {
                    _ = try await client.nextFrame(containing: #""seq""#)
                    delivered.add(1, ordering: .relaxed)
                }
                finish.yield()
            }
        }
        try await group.waitForAll()
    }
}
let fanOutStart = clock.now
for sequence in 0..<fanOutWrites {
    writeNumber += 1
    await writer.send(#"{"t":"d","d":{"r":\#(writeNumber),"a":"p","b":{"p":"/fan","d":{"seq":\#(sequence)}}}}"#)
}
var done = 0
for await _ in finished {
    done += 1
    if done == connectionCount { break }
}
let fanOutSeconds = seconds(clock.now - fanOutStart)
let deliveredCount = delivered.load(ordering: .relaxed)
try await receivers.value
print(
    "    \(fanOutWrites) writes × \(connectionCount) listeners = \(deliveredCount) events in \(format(fanOutSeconds, 3)) s: "
        + "\(format(Double(deliveredCount) / fanOutSeconds, 0)) delivered events/s")
print("    server after fan-out: \(serverMemory().summary)")

for client in listeners { await client.close() }
await writer.close()
try serverInput.fileHandleForWriting.close()
serverProcess.waitUntilExit()

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
