import CanopyServer
import CanopyStorage
import CanopyTree
import Synchronization
import Testing

/// Something a REST test waited for did not happen in time, or came out differently.
struct RESTExpectationFailure: Error, CustomStringConvertible {
    let description: String
}

/// An access policy for tests: everything is allowed except reads and writes at or below
/// the paths listed in ``deniedReads`` and ``deniedWrites``, which tests may change at any
/// time.
final class SwitchablePolicy: AccessPolicy {
    private let denied = Mutex<(reads: [Path], writes: [Path])>(([], []))
    private let lastAuth = Mutex<ConnectionAuth?>(nil)

    /// The credential of the last read or write asked about.
    var lastSeenAuth: ConnectionAuth? { lastAuth.withLock { $0 } }

    /// Refuses reads at or below `path` from now on.
    func denyReads(at path: Path) { denied.withLock { $0.reads.append(path) } }
    /// Refuses writes at or below `path` from now on.
    func denyWrites(at path: Path) { denied.withLock { $0.writes.append(path) } }

    func allowsRead(_ read: ReadAccess) -> Bool {
        lastAuth.withLock { $0 = read.auth }
        return denied.withLock { state in !state.reads.contains { $0.contains(read.path) } }
    }
    func allowsWrite(_ write: WriteAccess) -> Bool {
        lastAuth.withLock { $0 = write.auth }
        return denied.withLock { state in !state.writes.contains { $0.contains(write.path) } }
    }
    /// `no_index` for queries ordered by a child other than `indexed`.
    func listenWarnings(_ read: ReadAccess) -> [String] {
        guard let index = read.query?["i"]?.stringValue, !index.hasPrefix("."), index != "indexed" else { return [] }
        return ["no_index"]
    }
}

/// A server clock tests set by hand.
final class ManualClock: Sendable {
    private let millis: Atomic<Int64>

    init(_ start: Int64) { millis = Atomic(start) }

    /// The time in milliseconds since the Unix epoch.
    var now: Int64 {
        get { millis.load(ordering: .sequentiallyConsistent) }
        set { millis.store(newValue, ordering: .sequentiallyConsistent) }
    }
}

/// Keep-alive timers the test drives by hand: every stream gets its own tick stream, and
/// ``tick()`` ticks them all.
final class ManualTicker: Sendable {
    private let continuations = Mutex<[AsyncStream<Void>.Continuation]>([])

    /// The factory to put in `RESTHandler.Configuration.keepAliveTicks`.
    var factory: @Sendable () -> AsyncStream<Void> {
        {
            let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
            self.continuations.withLock { $0.append(continuation) }
            return stream
        }
    }

    /// One keep-alive period passes for every stream.
    func tick() {
        for continuation in continuations.withLock({ $0 }) { continuation.yield() }
    }
}

/// A ``CanopyServer`` with namespace `test` seeded from JSON (other namespaces empty), a
/// settable clock, a ``SwitchablePolicy`` and a ``RESTHandler`` over it.
struct RESTFixture {
    /// How long any wait may take before the test fails.
    static let timeout: Duration = .seconds(20)
    static let start: Int64 = 1_700_000_000_000

    let server: CanopyServer
    let handler: RESTHandler
    let policy = SwitchablePolicy()
    let ticker = ManualTicker()
    let clock = ManualClock(RESTFixture.start)

    init(
        seed: String = "null", maximumWriteBytes: Int = RESTHandler.Configuration.defaultMaximumWriteBytes,
        rejectsUnindexedQueries: Bool = false,
        isCredentialValid: @escaping @Sendable (ConnectionAuth, Int64) -> Bool = { _, _ in true }
    ) throws {
        let root = try Node(json: try JSONParser.parse(seed))
        let clock = self.clock
        let configuration = CanopyServer.Configuration(policy: policy, clock: { clock.now })
        server = CanopyServer(configuration: configuration) { name in
            if name == "missing" { throw RESTExpectationFailure(description: "no such store") }
            return MemoryTreeStore(root: name == "test" ? root : .empty)
        }
        handler = RESTHandler(
            server: server,
            configuration: RESTHandler.Configuration(
                maximumWriteBytes: maximumWriteBytes, keepAliveTicks: ticker.factory,
                rejectsUnindexedQueries: rejectsUnindexedQueries, isCredentialValid: isCredentialValid))
    }

    /// Sends a request whose target is relative to namespace `test` (`?ns=test` is appended)
    /// and returns the complete response.
    func send(
        _ method: String, _ target: String, body: String? = nil, headers: RESTHeaders = [:], namespace: Bool = true
    ) async throws -> RESTResponse {
        let reply = await handler.handle(
            method: method, target: namespace ? Self.inTest(target) : target, headers: headers,
            body: Array((body ?? "").utf8))
        guard case .response(let response) = reply else {
            throw RESTExpectationFailure(description: "\(method) \(target) answered a stream, not a response")
        }
        return response
    }

    /// Opens an event stream on `target` in namespace `test`.
    func open(_ target: String, headers: RESTHeaders = ["Accept": "text/event-stream"]) async throws -> EventReader {
        let reply = await handler.handle(method: "GET", target: Self.inTest(target), headers: headers)
        switch reply {
        case .stream(let stream):
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            return EventReader(stream.events)
        case .response(let response):
            throw RESTExpectationFailure(
                description: "GET \(target) answered \(response.status) \(response.bodyText), not a stream")
        }
    }

    /// The data namespace `test` holds at `path`, in export form.
    func value(at path: Path) async throws -> String {
        try await server.namespace(named: "test").value(at: path).exportJSON().serialized()
    }

    /// Sets the server clock.
    func setTime(_ now: Int64) {
        clock.now = now
    }

    /// Waits until no event stream is open.
    func waitForStreamsToClose() async throws {
        let deadline = ContinuousClock.now + Self.timeout
        while handler.openStreamCount > 0 {
            guard ContinuousClock.now < deadline else {
                throw RESTExpectationFailure(description: "\(handler.openStreamCount) streams still open")
            }
            await Task.yield()
        }
    }

    /// `target` with `ns=test` added to its query.
    static func inTest(_ target: String) -> String {
        target + (target.contains("?") ? "&" : "?") + "ns=test"
    }
}

/// Reads the events of a ``RESTStream`` with a timeout per event.
final class EventReader: Sendable {
    private let mailbox = Mailbox<ServerSentEvent>()
    private let consumer: Task<Void, Never>

    init(_ events: AsyncStream<ServerSentEvent>) {
        let mailbox = self.mailbox
        consumer = Task {
            for await event in events { mailbox.deliver(event) }
            mailbox.finish()
        }
    }

    /// The next event as text (`put {"path":"/","data":1}`), failing after the timeout or
    /// when the stream ended.
    func next() async throws -> String {
        switch await mailbox.next(timeout: RESTFixture.timeout) {
        case .item(let event): return "\(event.name) \(event.data)"
        case .finished: throw RESTExpectationFailure(description: "the stream ended instead of sending an event")
        case .timedOut: throw RESTExpectationFailure(description: "timed out waiting for an event")
        }
    }

    /// Waits for the end of the stream, failing if an event or nothing comes instead.
    func expectEnd() async throws {
        switch await mailbox.next(timeout: RESTFixture.timeout) {
        case .item(let event): throw RESTExpectationFailure(description: "expected the end, got \(event.text)")
        case .finished: return
        case .timedOut: throw RESTExpectationFailure(description: "timed out waiting for the stream to end")
        }
    }

    /// The client goes away: stops consuming the stream.
    func close() {
        consumer.cancel()
    }
}
