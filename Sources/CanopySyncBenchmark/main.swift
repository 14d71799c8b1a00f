// Applies 100,000 server updates to a 10,000-child location watched by a
// `queryLimited(toLast: 100)` view (child events) and a value listener, and prints the
// events raised per second, the cost against applying the same updates to a plain `Node`
// (the baseline, measured in the same run) and the memory used.
//
// Scenario 1 drives CanopySync's `SyncTree` directly. Scenario 2 runs the same updates end
// to end: a CanopyServer namespace applies them and pushes them over the loopback transport
// to a `SyncEngine` whose observers count the callbacks.
//
// Run with: swift run -c release CanopySyncBenchmark [children] [updates]

import CanopyBenchmarkSupport
import CanopyServer
import CanopyStorage
import CanopySync
import CanopyTree
import CanopyWire
import Foundation
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let childCount = arguments.first ?? 10_000
let updateCount = arguments.dropFirst().first ?? 100_000
let windowSize = 100

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ value: Double, _ decimals: Int = 0) -> String { String(format: "%.\(decimals)f", value) }

func memoryLine(_ label: String) {
    if let memory = ProcessMemory.read() { print("  memory \(label): \(memory.summary)") }
}

Task.detached {
    try await Task.sleep(for: .seconds(1800))
    print("FAIL: the benchmark did not finish within 30 minutes")
    exit(2)
}

let clock = ContinuousClock()
let startMemory = ProcessMemory.read()
print("CanopySyncBenchmark: \(childCount) children, \(updateCount) server updates, limitToLast(\(windowSize)) + value")
memoryLine("at start")
let workload = try SyncWorkload(location: Path("items"), childCount: childCount, updateCount: updateCount)
memoryLine("after building the workload")

// MARK: Baseline — the same updates applied to a plain Node, no views.

var raw = workload.initial
let rawStart = clock.now
for update in workload.updates {
    switch update {
    case .overwrite(let path, let node, _):
        raw = raw.updating(at: path, node)
    case .merge(let path, let children, _):
        for child in children { raw = raw.updating(at: path.child(child.path), child.node) }
    }
}
let rawSeconds = seconds(clock.now - rawStart)
print(
    "baseline (Node.updating, no views): \(format(rawSeconds, 3)) s, \(format(Double(updateCount) / rawSeconds)) updates/s"
)
memoryLine("after the baseline")

// MARK: Scenario 1 — SyncTree with a limit view and a value listener.

let provider = BenchmarkListenProvider()
let tree = SyncTree(listenProvider: provider)
let valueListener = BenchmarkRegistration([.value])
let windowListener = BenchmarkRegistration([.childAdded, .childRemoved, .childChanged, .childMoved])
let everything = QuerySpec.defaultQuery(at: workload.location)
let window = QuerySpec(path: workload.location, params: try QueryParams.default.limited(toLast: windowSize))
_ = tree.addEventRegistration(valueListener, for: everything)
_ = tree.addEventRegistration(windowListener, for: window)
var initialEvents = tree.applyServerOverwrite(path: workload.location, node: workload.initial).count
for completion in provider.completions { initialEvents += completion(.ok).count }
var eventsByType: [EventType: Int] = [:]
var eventCount = 0
let treeStart = clock.now
for update in workload.updates {
    let events: [Event]
    switch update {
    case .overwrite(let path, let node, _):
        events = tree.applyServerOverwrite(path: workload.location.child(path), node: node)
    case .merge(let path, let children, _):
        events = tree.applyServerMerge(path: workload.location.child(path), children: children)
    }
    eventCount += events.count
    for event in events { if let type = event.type { eventsByType[type, default: 0] += 1 } }
}
let treeSeconds = seconds(clock.now - treeStart)
let finalValue = tree.calcCompleteEventCache(at: workload.location)
guard finalValue.map({ $0 == raw }) == true else {
    print("FAIL: the sync tree's data differs from the baseline's after the updates")
    exit(1)
}
print(
    "SyncTree: \(format(treeSeconds, 3)) s, \(format(Double(updateCount) / treeSeconds)) updates/s, "
        + "\(eventCount) events (\(format(Double(eventCount) / treeSeconds)) events/s; initial \(initialEvents))")
let typeSummary = eventsByType.sorted { $0.key.name < $1.key.name }.map { "\($0.key.name): \($0.value)" }
print("  events by type: \(typeSummary.joined(separator: ", "))")
print("  engine overhead vs raw node updates: \(format(treeSeconds / rawSeconds, 2))×")
memoryLine("after SyncTree")

// MARK: Scenario 2 — end to end: CanopyServer → loopback → SyncEngine observers.

/// Counts delivered callbacks and remembers the latest value snapshot.
final class DeliveryCounter: Sendable {
    private struct State {
        var events = 0
        var lastValue: Node?
        var waiter: (target: Node, minimum: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    private let state = Mutex(State())

    func record(_ event: RaisedEvent) {
        let resume: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.events += 1
            if event.type == .value { state.lastValue = event.node }
            guard let waiter = state.waiter, state.events >= waiter.minimum, waiter.target == state.lastValue else {
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        resume?.resume()
    }

    var events: Int { state.withLock { $0.events } }

    /// Returns once a value event equal to `target` and at least `minimum` events in all
    /// have been delivered.
    func waitForValue(_ target: Node, events minimum: Int = 0) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if state.lastValue == target && state.events >= minimum { return true }
                state.waiter = (target, minimum, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

let seeded = Node.empty.updating(at: workload.location, workload.initial)
let network = LoopbackNetwork()
let listener = try network.listen(on: "server")
let server = CanopyServer(configuration: .init()) { _ in MemoryTreeStore(root: seeded) }
let serving = Task { await server.serve(listener) }
let namespace = try await server.namespace(named: "bench")
let engine = SyncEngine(
    configuration: .init(
        target: ConnectionTarget(host: "server", namespace: "bench"), transportFactory: network, statsCounters: nil))
let counter = DeliveryCounter()
let valueObserver = ObserverRegistration(eventTypes: [.value], onEvent: { counter.record($0) })
let windowObserver = ObserverRegistration(
    eventTypes: [.childAdded, .childRemoved, .childChanged, .childMoved], onEvent: { counter.record($0) })
await engine.addObserver(valueObserver, for: everything)
await engine.addObserver(windowObserver, for: window)
// The initial value and the window's initial children, as many as scenario 1 raised.
await counter.waitForValue(workload.initial, events: initialEvents)
let initialDelivered = counter.events
memoryLine("after the engine loaded the location")
let writer = ServerSessionID("benchmark-writer")
let engineStart = clock.now
for update in workload.updates {
    let response: ServerResponse
    switch update {
    case .overwrite(let path, _, let json):
        response = await namespace.put(
            session: writer, path: workload.location.child(path), data: json, hash: nil, auth: .unauthenticated)
    case .merge(let path, _, let json):
        response = await namespace.merge(
            session: writer, path: workload.location.child(path), children: json, auth: .unauthenticated)
    }
    guard response == .ok else {
        print("FAIL: the server refused an update: \(response)")
        exit(1)
    }
}
let serverDone = clock.now
await counter.waitForValue(raw)
let engineSeconds = seconds(clock.now - engineStart)
let delivered = counter.events - initialDelivered
print(
    "SyncEngine over loopback: \(format(engineSeconds, 3)) s, \(format(Double(updateCount) / engineSeconds)) updates/s, "
        + "\(delivered) callbacks (\(format(Double(delivered) / engineSeconds)) events/s); "
        + "server side alone \(format(seconds(serverDone - engineStart), 3)) s")
print("  end-to-end overhead vs raw node updates: \(format(engineSeconds / rawSeconds, 2))×")
memoryLine("after SyncEngine")
await engine.close()
await listener.close()
serving.cancel()

if let start = startMemory, let end = ProcessMemory.read() {
    print(
        "memory: RSS before \(ProcessMemory.megabytes(start.residentKB)) MB, after \(ProcessMemory.megabytes(end.residentKB)) MB, "
            + "peak (VmHWM) \(ProcessMemory.megabytes(end.peakKB)) MB")
}
