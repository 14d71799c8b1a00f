import CanopyTree
import CanopyWire

/// The engine's side of the wire: drives a ``ClientConnectionStateMachine`` over a fresh
/// ``ClientTransport`` per attempt, numbers requests, routes responses to their callbacks,
/// and keeps what must survive a reconnect (protocol.md §2.4–§2.5, §3.5;
/// client-design.md §11.4).
///
/// What it remembers across connections: the credential, every active listen (with its tag
/// and hash provider), every unacknowledged put and merge in order, pending gets and queued
/// onDisconnect requests. After each hello it sends, in this order: stats (first connection
/// only), `auth`, the listens, the writes, the gets, the onDisconnect requests.
///
/// When a connection ends, a conditional put (a transaction's, with a hash) that was on the
/// wire fails with `disconnect`; everything else is kept for the next connection. Reconnects
/// follow the ``ReconnectPolicy``; a redirect reconnects to the new host at once; a server
/// shutdown stops reconnecting; ``interrupt(_:)`` keeps the connection down until every
/// interrupt reason is lifted.
///
/// The connection lives inside the engine actor and is not `Sendable`. Its tasks (transport
/// reader and writer, timers, backoff waits) only feed ``ConnectionInput``s into the
/// engine's input stream; all state changes happen in ``handle(_:)``.
final class PersistentConnection {
    /// What the connection tells the engine.
    struct Callbacks {
        /// The hello arrived.
        var connected: (Handshake) -> Void = { _ in }
        /// A connection that had completed its handshake ended.
        var disconnected: () -> Void = {}
        /// A push other than a listen revocation arrived.
        var push: (ServerPush) -> Void = { _ in }
        /// The answer to an `auth` request, or `nil` when authentication was dropped.
        var authentication: (ServerResponse?) -> Void = { _ in }
        /// A line for the log.
        var log: (String) -> Void = { _ in }
    }

    /// A request kept until answered (puts, merges, gets, onDisconnect requests).
    private final class PendingRequest {
        let id: Int
        let request: ClientRequest
        let onComplete: (ServerResponse) -> Void
        /// For a get: how long it may wait for a connection.
        let offlineTimeout: Duration?
        /// The request number while it is on the wire.
        var number: Int64?
        /// For a get off the wire: the running offline wait.
        var offlineWait: Task<Void, Never>?
        /// Counts the get's offline waits; a timeout of an earlier wait is ignored.
        var offlineWaitGeneration = 0

        init(
            id: Int, request: ClientRequest, offlineTimeout: Duration? = nil,
            onComplete: @escaping (ServerResponse) -> Void
        ) {
            self.id = id
            self.request = request
            self.offlineTimeout = offlineTimeout
            self.onComplete = onComplete
        }

        /// Ends the running offline wait, if any (the get was sent, answered or dropped).
        func stopOfflineWait() {
            offlineWait?.cancel()
            offlineWait = nil
            offlineWaitGeneration += 1
        }

        var isConditionalPut: Bool {
            if case .put(_, _, let hash) = request { return hash != nil }
            return false
        }
    }

    /// An active listen.
    private final class ActiveListen {
        let query: QuerySpec
        let tag: Int?
        let hash: () -> String
        let onComplete: (ServerResponse) -> Void

        init(query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ServerResponse) -> Void)
        {
            self.query = query
            self.tag = tag
            self.hash = hash
            self.onComplete = onComplete
        }

        var request: ListenRequest {
            ListenRequest(
                path: query.path, query: tag == nil ? nil : query.params.wireObject, tag: tag.map { Int64($0) },
                hash: hash())
        }
    }

    /// The reason ``SyncEngine/goOffline()`` uses.
    static let userInterrupt = "user"

    /// The status a conditional put on the wire fails with when the connection drops.
    static let disconnectStatus = StatusCode("disconnect")
    /// The status of requests dropped by ``purgeOutstandingWrites()``.
    static let writeCanceledStatus = StatusCode("write_canceled")
    /// The status of a get that found no connection in time.
    static let offlineStatus = StatusCode("offline")

    var callbacks = Callbacks()
    /// Where the next connection goes (the host follows hellos and redirects).
    private(set) var target: ConnectionTarget
    private let transportFactory: any ClientTransportFactory
    private let machineConfiguration: ClientConnectionStateMachine.Configuration
    private let policy: ReconnectPolicy
    private let inputs: AsyncStream<ConnectionInput>.Continuation
    private let statsCounters: JSONValue?

    private var attempt = 0
    private var machine: ClientConnectionStateMachine?
    private var outgoing: AsyncStream<String>.Continuation?
    private var timers: [ClientConnectionTimer: Task<Void, Never>] = [:]
    private var reconnectTask: Task<Void, Never>?
    private var reconnectGeneration = 0
    private var connectedAt: ContinuousClock.Instant?
    private var backoff: Duration
    private var interruptReasons: Set<String> = []
    private var isShutDown = false
    private var hasConnectedBefore = false

    private var nextRequestNumber: Int64 = 1
    private var responseHandlers: [Int64: (ServerResponse) -> Void] = [:]
    private var nextPendingID = 1

    private var credential: AuthCredential?
    private var listens: [QuerySpec: ActiveListen] = [:]
    private var listenOrder: [QuerySpec] = []
    private var puts: [PendingRequest] = []
    private var gets: [PendingRequest] = []
    private var onDisconnects: [PendingRequest] = []

    /// Creates an idle connection; nothing happens until ``handle(_:)`` receives
    /// ``ConnectionInput/start``.
    init(
        target: ConnectionTarget, transportFactory: any ClientTransportFactory,
        machineConfiguration: ClientConnectionStateMachine.Configuration, policy: ReconnectPolicy,
        credential: AuthCredential?, statsCounters: JSONValue?, inputs: AsyncStream<ConnectionInput>.Continuation
    ) {
        self.target = target
        self.transportFactory = transportFactory
        self.machineConfiguration = machineConfiguration
        self.policy = policy
        self.credential = credential
        self.statsCounters = statsCounters
        self.inputs = inputs
        self.backoff = policy.initialDelay
    }

    deinit {
        reconnectTask?.cancel()
        for get in gets { get.offlineWait?.cancel() }
        for timer in timers.values { timer.cancel() }
        outgoing?.finish()
    }

    /// Whether the current connection has completed its handshake.
    var isConnected: Bool { machine?.handshake != nil }

    /// Whether some interrupt reason keeps the connection down.
    var isInterrupted: Bool { !interruptReasons.isEmpty }

    // MARK: - Inputs

    /// Handles one input from the engine's input stream.
    func handle(_ input: ConnectionInput) {
        let now = ContinuousClock.now
        switch input {
        case .start:
            if machine == nil && reconnectTask == nil { connectIfAllowed() }
        case .transport(let event, let attempt):
            guard attempt == self.attempt, machine != nil else { return }
            switch event {
            case .opened: perform(machine?.transportOpened(at: now) ?? [])
            case .frame(let frame): perform(machine?.frameReceived(frame, at: now) ?? [])
            case .closed(let reason): perform(machine?.transportClosed(reason, at: now) ?? [])
            }
        case .timer(let timer, let attempt):
            guard attempt == self.attempt, machine != nil else { return }
            timers[timer] = nil
            perform(machine?.timerFired(timer, at: now) ?? [])
        case .reconnect(let generation):
            guard generation == reconnectGeneration, reconnectTask != nil else { return }
            reconnectTask = nil
            connectIfAllowed()
        case .getTimedOut(let id, let generation):
            guard let index = gets.firstIndex(where: { $0.id == id }), gets[index].number == nil,
                gets[index].offlineWaitGeneration == generation
            else { return }
            let get = gets.remove(at: index)
            get.stopOfflineWait()
            get.onComplete(ServerResponse(status: Self.offlineStatus, data: .string("the client is offline")))
        }
    }

    // MARK: - Interrupts

    /// Keeps the connection down for `reason` (closing it if open).
    func interrupt(_ reason: String) {
        interruptReasons.insert(reason)
        reconnectTask?.cancel()
        reconnectTask = nil
        if machine != nil { perform(machine?.close(at: .now) ?? []) }
    }

    /// Lifts `reason`; connects at once when no other reason remains.
    func resume(_ reason: String) {
        guard interruptReasons.remove(reason) != nil else { return }
        backoff = policy.initialDelay
        if machine == nil && reconnectTask == nil { connectIfAllowed() }
    }

    // MARK: - Authentication

    /// Sets or clears the credential; sends `auth`/`unauth` at once when connected.
    func setCredential(_ credential: AuthCredential?) {
        self.credential = credential
        guard isConnected else { return }
        if credential != nil {
            sendAuth()
        } else {
            send(.unauth, handler: nil)
            callbacks.authentication(nil)
        }
    }

    // MARK: - Listens

    /// Starts (or replaces) the listen for `query`; `onComplete` gets the listen's response.
    func listen(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ServerResponse) -> Void
    ) {
        let listen = ActiveListen(query: query, tag: tag, hash: hash, onComplete: onComplete)
        if listens.updateValue(listen, forKey: query) == nil { listenOrder.append(query) }
        if isConnected { sendListen(listen) }
    }

    /// Stops the listen for `query`.
    func unlisten(_ query: QuerySpec, tag: Int?) {
        guard listens.removeValue(forKey: query) != nil else { return }
        listenOrder.removeAll { $0 == query }
        if isConnected {
            send(
                .unlisten(
                    path: query.path, query: tag == nil ? nil : query.params.wireObject, tag: tag.map { Int64($0) }),
                handler: nil)
        }
    }

    private func sendListen(_ listen: ActiveListen) {
        send(.listen(listen.request)) { [weak self, listen] response in
            guard let self, self.listens[listen.query] === listen else { return }
            if response.status.isOK {
                if case .array(let warnings)? = response.data?["w"], !warnings.isEmpty {
                    self.callbacks.log(
                        "listen at \(listen.query.path) warns: \(warnings.compactMap(\.stringValue).joined(separator: ", "))"
                    )
                }
            } else {
                self.listens[listen.query] = nil
                self.listenOrder.removeAll { $0 == listen.query }
            }
            listen.onComplete(response)
        }
    }

    // MARK: - Writes, gets, onDisconnect

    /// Queues a put or merge; sent now when connected, else after the next hello.
    func write(_ request: ClientRequest, onComplete: @escaping (ServerResponse) -> Void) {
        let pending = makePending(request, onComplete: onComplete)
        puts.append(pending)
        if isConnected { sendPending(pending) }
    }

    /// Queues a get; when not connected it waits at most `offlineTimeout` for a connection,
    /// then fails with status `offline`. The wait runs only while the get is off the wire:
    /// it stops when the get is sent, and a get whose connection drops before its answer is
    /// kept for the next connection with a new wait of `offlineTimeout` from the drop.
    func get(_ request: ClientRequest, offlineTimeout: Duration, onComplete: @escaping (ServerResponse) -> Void) {
        let pending = makePending(request, offlineTimeout: offlineTimeout, onComplete: onComplete)
        gets.append(pending)
        if isConnected {
            sendPending(pending)
        } else {
            startGetTimer(pending)
        }
    }

    /// Queues an onDisconnect request (`o`, `om`, `oc`).
    func onDisconnect(_ request: ClientRequest, onComplete: @escaping (ServerResponse) -> Void) {
        let pending = makePending(request, onComplete: onComplete)
        onDisconnects.append(pending)
        if isConnected { sendPending(pending) }
    }

    /// Drops every unanswered put, merge and onDisconnect request, completing each with
    /// `write_canceled`; responses still on their way are ignored.
    func purgeOutstandingWrites() {
        let dropped = puts + onDisconnects
        puts = []
        onDisconnects = []
        for pending in dropped {
            if let number = pending.number { responseHandlers[number] = nil }
            pending.onComplete(ServerResponse(status: Self.writeCanceledStatus, data: .string("write canceled")))
        }
    }

    private func makePending(
        _ request: ClientRequest, offlineTimeout: Duration? = nil, onComplete: @escaping (ServerResponse) -> Void
    ) -> PendingRequest {
        defer { nextPendingID += 1 }
        return PendingRequest(
            id: nextPendingID, request: request, offlineTimeout: offlineTimeout, onComplete: onComplete)
    }

    private func sendPending(_ pending: PendingRequest) {
        pending.stopOfflineWait()
        pending.number = send(pending.request) { [weak self, pending] response in
            guard let self else { return }
            self.puts.removeAll { $0 === pending }
            self.gets.removeAll { $0 === pending }
            self.onDisconnects.removeAll { $0 === pending }
            pending.onComplete(response)
        }
    }

    /// Starts the offline wait of a get that is off the wire, replacing any earlier wait.
    private func startGetTimer(_ pending: PendingRequest) {
        guard let timeout = pending.offlineTimeout else { return }
        pending.stopOfflineWait()
        let inputs = self.inputs
        let id = pending.id
        let generation = pending.offlineWaitGeneration
        pending.offlineWait = Task {
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return
            }
            inputs.yield(.getTimedOut(id: id, generation: generation))
        }
    }

    // MARK: - Sending

    @discardableResult
    private func send(_ request: ClientRequest, handler: ((ServerResponse) -> Void)?) -> Int64 {
        let number = nextRequestNumber
        nextRequestNumber += 1
        if let handler { responseHandlers[number] = handler }
        perform(machine?.send(.request(number: number, request), at: .now) ?? [])
        return number
    }

    private func sendAuth() {
        guard let credential else { return }
        send(.auth(credential)) { [weak self] response in
            guard let self else { return }
            if !response.status.isOK {
                // A refused credential is forgotten (protocol.md §3.4.2).
                self.credential = nil
            }
            self.callbacks.authentication(response)
        }
    }

    // MARK: - Connection lifecycle

    private func connectIfAllowed() {
        guard interruptReasons.isEmpty, !isShutDown, machine == nil else { return }
        attempt += 1
        let attempt = self.attempt
        machine = ClientConnectionStateMachine(configuration: machineConfiguration)
        connectedAt = nil
        let transport = transportFactory.makeTransport()
        let (frames, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let inputs = self.inputs
        let target = self.target
        Task {
            for await event in transport.events {
                inputs.yield(.transport(event, attempt: attempt))
            }
        }
        Task {
            await transport.connect(to: target)
            for await frame in frames { await transport.send(frame) }
            await transport.close()
        }
    }

    private func perform(_ actions: [ClientConnectionAction]) {
        for action in actions {
            switch action {
            case .sendFrames(let frames):
                for frame in frames { outgoing?.yield(frame) }
            case .handshakeCompleted(let hello):
                connected(hello)
            case .deliverResponse(let number, let response):
                responseHandlers.removeValue(forKey: number)?(response)
            case .deliverPush(let push):
                received(push)
            case .logServerError(let message):
                callbacks.log("server error: \(message)")
            case .scheduleTimer(let timer, let deadline):
                schedule(timer, at: deadline)
            case .closeTransport:
                outgoing?.finish()
            case .connectionEnded(let reason):
                ended(reason)
            }
        }
    }

    private func schedule(_ timer: ClientConnectionTimer, at deadline: ContinuousClock.Instant) {
        timers[timer]?.cancel()
        let inputs = self.inputs
        let attempt = self.attempt
        timers[timer] = Task {
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return
            }
            inputs.yield(.timer(timer, attempt: attempt))
        }
    }

    private func connected(_ hello: Handshake) {
        connectedAt = .now
        target.lastSessionID = hello.sessionID
        if !hello.host.isEmpty { target.host = hello.host }
        callbacks.connected(hello)
        if !hasConnectedBefore, let statsCounters {
            send(.stats(counters: statsCounters), handler: nil)
        }
        hasConnectedBefore = true
        sendAuth()
        for query in listenOrder {
            if let listen = listens[query] { sendListen(listen) }
        }
        for pending in puts { sendPending(pending) }
        for pending in gets { sendPending(pending) }
        for pending in onDisconnects { sendPending(pending) }
    }

    private func received(_ push: ServerPush) {
        switch push {
        case .listenRevoked(let path, let queries):
            let revokedQuery: JSONValue?
            if case .array(let elements)? = queries { revokedQuery = elements.first } else { revokedQuery = nil }
            let revoked = listenOrder.compactMap { listens[$0] }.filter { listen in
                guard listen.query.path == path else { return false }
                if let revokedQuery { return listen.tag != nil && listen.query.params.wireObject == revokedQuery }
                return listen.tag == nil
            }
            for listen in revoked {
                listens[listen.query] = nil
                listenOrder.removeAll { $0 == listen.query }
                listen.onComplete(.failure(.permissionDenied, "the listen was revoked"))
            }
        case .authRevoked(let status, let reason):
            callbacks.log("authentication revoked: \(status) \(reason ?? "")")
            credential = nil
            callbacks.authentication(ServerResponse(status: status, data: reason.map { .string($0) }))
            if machine != nil { perform(machine?.close(at: .now) ?? []) }
        case .securityDebug(let message):
            callbacks.log(message)
        default:
            callbacks.push(push)
        }
    }

    private func ended(_ reason: ClientDisconnectReason) {
        let wasConnected = connectedAt != nil
        let lasted = connectedAt.map { ContinuousClock.now - $0 }
        for timer in timers.values { timer.cancel() }
        timers = [:]
        outgoing?.finish()
        outgoing = nil
        machine = nil
        connectedAt = nil
        responseHandlers = [:]

        // Transactions' puts on the wire fail; everything else waits for the next connection.
        let lost = puts.filter { $0.number != nil && $0.isConditionalPut }
        puts.removeAll { $0.number != nil && $0.isConditionalPut }
        // A get that was on the wire waits for the next connection, but no longer than a
        // get made offline would.
        for get in gets where get.number != nil { startGetTimer(get) }
        for pending in puts + gets + onDisconnects { pending.number = nil }
        for pending in lost {
            pending.onComplete(ServerResponse(status: Self.disconnectStatus, data: .string("disconnected")))
        }
        if wasConnected { callbacks.disconnected() }

        if let lasted, lasted > policy.resetAfter { backoff = policy.initialDelay }
        switch reason {
        case .redirected(let host):
            callbacks.log("redirected to \(host)")
            target.host = host
            connectIfAllowed()
        case .shutdown(let message):
            callbacks.log("server shut the connection down: \(message)")
            isShutDown = true
        case .closedByClient where !interruptReasons.isEmpty:
            break
        default:
            scheduleReconnect()
        }
    }

    private func scheduleReconnect() {
        guard interruptReasons.isEmpty, !isShutDown else { return }
        let wait = policy.wait(for: backoff)
        backoff = policy.grown(backoff)
        reconnectGeneration += 1
        let generation = reconnectGeneration
        let inputs = self.inputs
        reconnectTask = Task {
            do {
                try await Task.sleep(for: wait)
            } catch {
                return
            }
            inputs.yield(.reconnect(generation: generation))
        }
    }
}
