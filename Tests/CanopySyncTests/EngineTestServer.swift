import CanopyServer
import CanopyStorage
import CanopySync
import CanopyTree
import CanopyWire

/// A ``CanopyServer`` on a loopback network (listener `server`, namespace `test`) and
/// engines connected to it with fast reconnects and recording transports.
struct EngineTestServer {
    let network = LoopbackNetwork()
    let listener: LoopbackListener
    let server: CanopyServer
    let serving: Task<Void, Never>

    init(seed: String = "null", policy: any AccessPolicy = OpenAccessPolicy()) throws {
        let root = try Node(jsonText: seed)
        listener = try network.listen(on: "server")
        let configuration = CanopyServer.Configuration(policy: policy)
        server = CanopyServer(configuration: configuration) { name in
            MemoryTreeStore(root: name == "test" ? root : .empty)
        }
        let server = self.server
        let listener = self.listener
        serving = Task { await server.serve(listener) }
    }

    /// A new engine for namespace `test` and the factory recording its requests.
    func makeEngine(
        startsOnline: Bool = true, getOfflineTimeout: Duration = .seconds(15),
        credential: AuthCredential? = nil, host: String = "server",
        writeQueue: any WriteQueueStore = MemoryWriteQueueStore()
    ) -> (SyncEngine, RecordingTransportFactory) {
        let transports = RecordingTransportFactory(network: network)
        let configuration = SyncEngine.Configuration(
            target: ConnectionTarget(host: host, namespace: "test"), transportFactory: transports,
            reconnect: ReconnectPolicy(
                initialDelay: .milliseconds(5), maxDelay: .milliseconds(40), resetAfter: .seconds(30)),
            credential: credential, getOfflineTimeout: getOfflineTimeout, startsOnline: startsOnline,
            writeQueue: writeQueue)
        return (SyncEngine(configuration: configuration), transports)
    }

    /// The server's data at `path` in export form.
    func value(at path: String) async throws -> String {
        try await server.namespace(named: "test").value(at: Path(path)).exportJSON().serialized()
    }

    /// Stops accepting connections.
    func stop() async {
        await listener.close()
        serving.cancel()
    }
}

/// Parses JSON text into a node.
func node(_ json: String) throws -> Node {
    try Node(jsonText: json)
}

extension Node {
    /// The plain JSON text of the node (no priorities).
    var text: String { valueJSON().serialized() }

    /// The export-form JSON text of the node (objects stay objects).
    var exported: String { exportJSON().serialized() }
}

extension SyncEngine {
    /// Attaches an observer at `path` recording its events (and cancels, when asked).
    func observe(
        _ path: String, _ types: Set<EventType> = [.value], params: QueryParams = .default,
        cancels: TestRecorder<DatabaseError>? = nil
    ) -> (events: TestRecorder<RaisedEvent>, handle: UInt) {
        let events = TestRecorder<RaisedEvent>()
        var onCancel: (@Sendable (DatabaseError) -> Void)?
        if let cancels { onCancel = { error in cancels.append(error) } }
        let registration = ObserverRegistration(
            eventTypes: types, onEvent: { event in events.append(event) }, onCancel: onCancel)
        addObserver(registration, for: QuerySpec(path: Path(path), params: params))
        return (events, registration.handle)
    }

    /// Sets JSON at `path`; the completion is recorded.
    func set(_ json: String, at path: String) throws -> TestRecorder<DatabaseError?> {
        let done = TestRecorder<DatabaseError?>()
        try setValue(try node(json), at: Path(path)) { done.append($0) }
        return done
    }

    /// Runs an integer-increment transaction at `path`; the completion is recorded.
    func increment(at path: String, into done: TestRecorder<TransactionCompletion>) throws(DatabaseError) {
        let update: @Sendable (Node) -> TransactionOutcome = { current in
            var value: Int64 = 0
            if case .int(let n)? = current.leafValue { value = n }
            return .commit(Node(leaf: .int(value + 1)))
        }
        try runTransaction(at: Path(path), update: update, completion: { done.append($0) })
    }

    /// Waits until the engine's connection has completed its handshake.
    func waitUntilConnected() async -> Bool {
        let (events, handle) = observe(".info/connected")
        let connected = await events.wait { $0.contains { $0.node.leafValue == .bool(true) } }
        removeObserver(withHandle: handle)
        return connected
    }
}
