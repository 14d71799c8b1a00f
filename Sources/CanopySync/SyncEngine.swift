import CanopyTree
import CanopyWire

/// A write's completion: `nil` on success, else why the write failed (it has been reverted
/// locally by then).
public typealias WriteCompletion = @Sendable (DatabaseError?) -> Void

/// The client engine of one database — the "repo" of client-design.md §2.1.
///
/// It owns the server ``SyncTree``, the `.info` sync tree, the persistent connection,
/// the transaction queue and the onDisconnect mirror, and turns the public operations into
/// sync-tree calls and wire requests:
///
/// - observers: ``addObserver(_:for:)``, ``removeObserver(withHandle:)``,
///   ``removeAllObservers(for:)``, ``keepSynced(_:_:)``;
/// - writes: ``setValue(_:at:completion:)``, ``updateChildValues(_:at:completion:)``,
///   ``setPriority(_:at:completion:)``, ``removeValue(at:completion:)`` — local events at
///   once, the write on the wire, ack or revert on the response;
/// - ``runTransaction(at:appliesLocally:update:completion:)`` (client-design.md §9);
/// - onDisconnect operations (§10.1), one-shot reads with ``getData(_:completion:)`` (§11.1),
///   ``purgeOutstandingWrites()``, ``goOffline()`` / ``goOnline()`` (§11);
/// - pending-write visibility: ``pendingWriteCount``, ``writeStatuses()``,
///   ``waitForPendingWrites()``.
///
/// Every event and completion is delivered through the configured ``CallbackExecutor`` in
/// the order the engine raised it, never on the actor. The engine persists nothing yet.
public actor SyncEngine {
    static let infoKey = ChildKey(".info")
    static let connectedPath = Path(keys: [infoKey, ChildKey("connected")])
    static let serverTimeOffsetPath = Path(keys: [infoKey, ChildKey("serverTimeOffset")])
    static let authenticatedPath = Path(keys: [infoKey, ChildKey("authenticated")])
    /// The most puts one transaction may send (client-design.md §9.4).
    static let maxTransactionRetries = 25

    /// The settings the engine was created with.
    public nonisolated let configuration: Configuration
    /// The estimated server clock, readable from any thread.
    public nonisolated let serverClock: ServerClock

    let executor: any CallbackExecutor
    let connection: PersistentConnection
    let listenProvider: ServerListenProvider
    let infoProvider: InfoListenProvider
    let serverTree: SyncTree
    let infoTree: SyncTree
    private let inputs: AsyncStream<ConnectionInput>.Continuation
    private var isWired = false

    var nextWriteIdValue = 1
    var observers: [UInt: (registration: ObserverRegistration, query: QuerySpec)] = [:]
    /// keepSynced pins: the registration keeping each pinned query's view, and its pin count.
    var pins: [QuerySpec: (registration: ObserverRegistration, count: Int)] = [:]
    var transactions = TransactionQueue()
    var nextTransactionOrder = 1
    var onDisconnectTree = SparseSnapshotTree()
    /// The error of the listen failure whose cancel events are being raised.
    private var currentCancelError: DatabaseError?

    var pendingWrites: [Int: Path] = [:]
    private var statusContinuations: [Int: AsyncStream<WriteStatus>.Continuation] = [:]
    private var nextStatusSubscriber = 1
    private var pendingWaiters: [CheckedContinuation<Void, Never>] = []

    /// Creates an engine; unless ``Configuration/startsOnline`` is `false` it starts
    /// connecting at once.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.serverClock = ServerClock(localClock: configuration.wallClock)
        self.executor = configuration.callbackExecutor
        let (stream, inputs) = AsyncStream.makeStream(of: ConnectionInput.self)
        self.inputs = inputs
        let connection = PersistentConnection(
            target: configuration.target, transportFactory: configuration.transportFactory,
            machineConfiguration: configuration.connection, policy: configuration.reconnect,
            credential: configuration.credential, statsCounters: configuration.statsCounters, inputs: inputs)
        self.connection = connection
        let listenProvider = ServerListenProvider(connection: connection)
        self.listenProvider = listenProvider
        self.serverTree = SyncTree(listenProvider: listenProvider)
        let infoProvider = InfoListenProvider()
        self.infoProvider = infoProvider
        self.infoTree = SyncTree(listenProvider: infoProvider)
        if !configuration.startsOnline { connection.interrupt(PersistentConnection.userInterrupt) }
        Task { [weak self] in
            for await input in stream {
                guard let self else { return }
                await self.receive(input)
            }
        }
        inputs.yield(.start)
    }

    /// Stops the engine: closes the connection for good, stops handling inputs, finishes
    /// the ``writeStatuses()`` streams and releases the collaborators' references to the
    /// engine. Observers get no further server events.
    public func close() {
        wire()
        connection.interrupt("closed")
        inputs.finish()
        for continuation in statusContinuations.values { continuation.finish() }
        statusContinuations = [:]
        connection.callbacks = PersistentConnection.Callbacks()
        listenProvider.raise = { _ in }
        listenProvider.listenFailed = { _, _, _ in }
    }

    // MARK: - Wiring and inputs

    /// Connects the collaborators' callbacks to the actor (once, from an isolated context).
    func wire() {
        guard !isWired else { return }
        isWired = true
        let log = configuration.log
        connection.callbacks = PersistentConnection.Callbacks(
            connected: { hello in self.connectionEstablished(hello) },
            disconnected: { self.connectionLost() },
            push: { push in self.received(push) },
            authentication: { response in self.authenticationChanged(response) },
            log: { line in log?(line) })
        listenProvider.raise = { events in self.raise(events) }
        listenProvider.listenFailed = { query, error, removal in
            self.listenFailed(query, error: error, removal: removal)
        }
        infoProvider.tree = infoTree
        raise(infoProvider.update(Self.connectedPath, Node(leaf: .bool(false))))
        raise(infoProvider.update(Self.authenticatedPath, Node(leaf: .bool(false))))
        restoreWrites()
    }

    private func receive(_ input: ConnectionInput) {
        wire()
        connection.handle(input)
    }

    // MARK: - Connection state

    /// Whether the connection has completed its handshake.
    public var isConnected: Bool { connection.isConnected }

    /// Closes the connection and keeps it closed until ``goOnline()``. Pending writes,
    /// listens and onDisconnect requests stay queued and are sent after reconnecting.
    public func goOffline() {
        wire()
        connection.interrupt(PersistentConnection.userInterrupt)
    }

    /// Reconnects after ``goOffline()``.
    public func goOnline() {
        wire()
        connection.resume(PersistentConnection.userInterrupt)
    }

    /// Sets (or, with `nil`, clears) the credential: sent at once when connected and after
    /// every later hello.
    public func setCredential(_ credential: AuthCredential?) {
        wire()
        connection.setCredential(credential)
    }

    private func connectionEstablished(_ hello: Handshake) {
        let offset = serverClock.synchronize(serverTime: hello.timestamp)
        raise(infoProvider.update(Self.serverTimeOffsetPath, Node(leaf: .int(offset))))
        raise(infoProvider.update(Self.connectedPath, Node(leaf: .bool(true))))
    }

    private func connectionLost() {
        raise(infoProvider.update(Self.connectedPath, Node(leaf: .bool(false))))
        if infoProvider.value(at: Self.authenticatedPath).leafValue == .bool(true) {
            raise(infoProvider.update(Self.authenticatedPath, Node(leaf: .bool(false))))
        }
        runOnDisconnectEvents()
    }

    private func authenticationChanged(_ response: ServerResponse?) {
        let authenticated = response?.status.isOK ?? false
        if let response, !response.status.isOK {
            configuration.log?("authentication failed: \(response.status) \(response.reason ?? "")")
        }
        raise(infoProvider.update(Self.authenticatedPath, Node(leaf: .bool(authenticated))))
    }

    // MARK: - Server pushes

    private func received(_ push: ServerPush) {
        switch push {
        case .data(let path, let data, let tag):
            guard let node = serverNode(data, at: path) else { return }
            let events: [Event]
            if let tag {
                events = serverTree.applyTaggedQueryOverwrite(path: path, node: node, tag: Int(tag))
            } else {
                events = serverTree.applyServerOverwrite(path: path, node: node)
            }
            serverDataApplied(events, at: path)
        case .merge(let path, let data, let tag):
            guard case .object(let members) = data, !members.isEmpty else { return }
            var children: [(path: Path, node: Node)] = []
            for member in members {
                guard let node = serverNode(member.value, at: path.child(member.key)) else { return }
                children.append((Path(member.key), node))
            }
            let events: [Event]
            if let tag {
                events = serverTree.applyTaggedQueryMerge(path: path, children: children, tag: Int(tag))
            } else {
                events = serverTree.applyServerMerge(path: path, children: children)
            }
            serverDataApplied(events, at: path)
        case .rangeMerge:
            configuration.log?("ignored a range merge (no compound hash was sent)")
        default:
            return
        }
    }

    private func serverNode(_ data: JSONValue, at path: Path) -> Node? {
        do {
            return try Node(json: data)
        } catch {
            configuration.log?("ignored invalid server data at \(path): \(error)")
            return nil
        }
    }

    private func serverDataApplied(_ events: [Event], at path: Path) {
        raise(events)
        if !events.isEmpty { rerunTransactions(at: path) }
    }

    // MARK: - Observers

    func tree(for path: Path) -> SyncTree {
        path.front == Self.infoKey ? infoTree : serverTree
    }

    /// Attaches an observer to `query`: it receives the initial events at once (through the
    /// executor) and later events as data changes; a listen starts unless one covers it.
    public func addObserver(_ registration: ObserverRegistration, for query: QuerySpec) {
        wire()
        observers[registration.handle] = (registration, query)
        raise(tree(for: query.path).addEventRegistration(registration, for: query))
    }

    /// Detaches the observer with `handle` (no effect when it is already gone).
    public func removeObserver(withHandle handle: UInt) {
        wire()
        detach(handle)
    }

    /// Detaches every observer of `query` — for the default query, every observer at its
    /// location. keepSynced pins and transactions' listeners stay.
    public func removeAllObservers(for query: QuerySpec) {
        wire()
        let matching = observers.filter { _, entry in
            query.params.isDefault ? entry.query.path == query.path : entry.query == query
        }
        for handle in matching.keys.sorted() { detach(handle) }
    }

    /// The number of observers attached.
    public var observerCount: Int { observers.count }

    private func detach(_ handle: UInt) {
        guard let (registration, query) = observers.removeValue(forKey: handle) else { return }
        registration.deactivate()
        raise(tree(for: query.path).removeEventRegistration(registration, for: query))
    }

    private func listenFailed(_ query: QuerySpec, error: DatabaseError, removal: () -> [Event]) {
        currentCancelError = error
        raise(removal())
        currentCancelError = nil
        // Registrations without a cancel callback got no event; forget them too.
        let matches: (QuerySpec) -> Bool = { candidate in
            query.params.isDefault ? candidate.path == query.path : candidate == query
        }
        for (handle, entry) in observers where matches(entry.query) {
            observers[handle] = nil
            entry.registration.deactivate()
        }
        for pinned in pins.keys where matches(pinned) { pins[pinned] = nil }
    }

    // MARK: - Raising events

    /// Hands events to the executor in order; a single-event registration is detached at
    /// its first event.
    func raise(_ events: [Event]) {
        for event in events {
            guard let registration = event.registration as? ObserverRegistration else { continue }
            switch event.kind {
            case .data(let type):
                let raised = RaisedEvent(
                    type: type, query: event.query, path: event.path, node: event.node,
                    previousChildKey: event.previousChildKey)
                if registration.isSingleEvent {
                    guard registration.claimSingleEvent() else { continue }
                    detach(registration.handle)
                    executor.enqueue { registration.deliver(raised, force: true) }
                } else {
                    executor.enqueue { registration.deliver(raised, force: false) }
                }
            case .cancel(let reason):
                observers[registration.handle] = nil
                registration.deactivate()
                let error = currentCancelError ?? DatabaseError(status: StatusCode(reason))
                executor.enqueue { registration.deliverCancel(error) }
            }
        }
    }

    /// Runs `work` on the executor after everything raised so far.
    func complete(_ work: @escaping @Sendable () -> Void) {
        executor.enqueue(work)
    }

    // MARK: - Pending writes

    func nextWriteId() -> Int {
        defer { nextWriteIdValue += 1 }
        return nextWriteIdValue
    }

    /// The number of user writes not yet acknowledged or failed.
    public var pendingWriteCount: Int { pendingWrites.count }

    /// A stream of write state changes from now on (each new write as pending, then its
    /// acknowledgement or failure).
    public func writeStatuses() -> AsyncStream<WriteStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: WriteStatus.self)
        let id = nextStatusSubscriber
        nextStatusSubscriber += 1
        statusContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeStatusSubscriber(id) }
        }
        return stream
    }

    private func removeStatusSubscriber(_ id: Int) {
        statusContinuations[id] = nil
    }

    /// Returns once no user write is pending (at once when none is).
    public func waitForPendingWrites() async {
        if pendingWrites.isEmpty { return }
        await withCheckedContinuation { pendingWaiters.append($0) }
    }

    func writeStarted(_ writeId: Int, at path: Path) {
        pendingWrites[writeId] = path
        publish(WriteStatus(writeId: writeId, path: path, state: .pending))
    }

    func writeFinished(_ writeId: Int, error: DatabaseError?) {
        guard let path = pendingWrites.removeValue(forKey: writeId) else { return }
        publish(WriteStatus(writeId: writeId, path: path, state: error.map { .failed($0) } ?? .acknowledged))
        if pendingWrites.isEmpty {
            let waiters = pendingWaiters
            pendingWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    private func publish(_ status: WriteStatus) {
        for continuation in statusContinuations.values { continuation.yield(status) }
    }
}
