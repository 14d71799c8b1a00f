import CanopyTree
import CanopyWire

/// Serves one client connection: drives a `ServerConnectionStateMachine` from a transport's
/// `ServerConnection` and hands the connection's requests to its ``ServerNamespace``.
///
/// Transport-agnostic: it sees only text frames, pongs and the close event. Behaviour:
/// - sends the hello (`ts`, `v` `"5"`, `h` = the request's `Host`, `s` = the session id) at
///   once;
/// - processes requests strictly in arrival order, each to completion (the namespace queues
///   the pushes a request causes before its response is queued), and answers each exactly
///   once; `auth`/`gauth`/`unauth` change the connection's ``ConnectionAuth`` before the next
///   request runs;
/// - sends everything — hello, pushes, responses, pings — through the connection's one ordered
///   outbound queue, split into frames of at most 16384 characters, each message handed to the
///   transport whole (`send(frames:)`), so a transport that bounds what it queues for a slow
///   client accepts or refuses a message, never part of one;
/// - on a frame that cannot be answered (not JSON, no request number, a bad chunk count) it
///   sends a control error message naming the problem and closes the connection; a request
///   whose number is readable is answered with an error status instead, and the connection
///   stays open;
/// - probes quiet connections with transport pings and closes those silent for the idle
///   timeout;
/// - when the connection ends for any reason, the namespace runs its onDisconnect
///   operations.
///
/// The handler runs on its namespace's executor: a request passes from the connection to the
/// namespace, and the pushes it causes to every connection's queue, without a thread hop.
public actor ServerConnectionHandler {
    /// The connection's session id (the hello's `s`).
    public nonisolated let session: ServerSessionID
    private let connection: any ServerConnection
    private let namespace: ServerNamespace
    private let clock: @Sendable () -> Int64
    private let log: (@Sendable (String) -> Void)?
    private var machine: ServerConnectionStateMachine
    private var auth = ConnectionAuth.unauthenticated
    private var timers: [ServerConnectionTimer: Task<Void, Never>] = [:]
    private var ended = false

    /// The namespace's executor, shared so that calls between them need no hop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        namespace.unownedExecutor
    }

    /// Creates a handler for `connection`, serving `namespace`.
    ///
    /// - Parameters:
    ///   - connection: The accepted transport connection.
    ///   - namespace: The namespace the connection's `ns` names.
    ///   - session: The session id to announce in the hello.
    ///   - configuration: Frame limits, probe interval and idle timeout.
    ///   - clock: The server time in milliseconds since the Unix epoch (the hello's `ts`).
    ///   - log: Receives one line per notable event: the connection opening and ending (with
    ///     the reason), frames that closed it, requests that failed inside the server.
    public init(
        connection: any ServerConnection, namespace: ServerNamespace, session: ServerSessionID = .random(),
        configuration: ServerConnectionStateMachine.Configuration = .init(),
        clock: @escaping @Sendable () -> Int64, log: (@Sendable (String) -> Void)? = nil
    ) {
        self.connection = connection
        self.namespace = namespace
        self.session = session
        self.clock = clock
        self.log = log
        self.machine = ServerConnectionStateMachine(configuration: configuration)
    }

    /// Serves the connection until it ends, then runs its onDisconnect operations.
    public func run() async {
        let request = connection.request
        log?(
            "session \(session): connected to namespace \(namespace.name) from \(request.remoteAddress ?? "unknown")")
        let hello = Handshake(timestamp: clock(), host: request.host, sessionID: session.value)
        await perform(machine.connectionOpened(hello: hello, at: .now))
        let splitter = FrameSplitter(
            maxFrameSize: machine.configuration.maxFrameSize, maxFrameCount: machine.configuration.maxFrameCount)
        await namespace.open(session: session) { [connection] push in
            connection.send(frames: splitter.frames(for: .push(push)))
        }
        for await event in connection.events {
            switch event {
            case .frame(let frame):
                await perform(machine.frameReceived(frame, at: .now))
            case .pong:
                await perform(machine.pongReceived(at: .now))
            case .closed(let reason):
                await perform(machine.transportClosed(reason, at: .now))
            }
            if ended { break }
        }
        if !ended { await perform(machine.transportClosed(.closedByPeer, at: .now)) }
    }

    /// Closes the connection from the server side (its onDisconnect operations run).
    public func close() async {
        await perform(machine.close(at: .now))
    }

    /// Performs a state machine's actions in order.
    ///
    /// Closing the transport waits until the connection's onDisconnect operations have run,
    /// so that whoever sees the connection close can already read their effects.
    private func perform(_ actions: [ServerConnectionAction]) async {
        var closeRequested = false
        for action in actions {
            switch action {
            case .sendFrames(let frames):
                connection.send(frames: frames)
            case .deliverRequest(let number, let request):
                let response = await answer(request)
                if response.status == .failure {
                    log?("session \(session): request \(number) (\(request.action)) failed: \(response.reason ?? "")")
                }
                await perform(machine.send(.response(number: number, response), at: .now))
            case .rejectRequest(let number, let response):
                await perform(machine.send(.response(number: number, response), at: .now))
            case .ignoredMessage(let error):
                log?("session \(session): closing after an unreadable frame: \(error)")
                await perform(machine.send(.control(.error(message: "Closing the connection: \(error)")), at: .now))
                await perform(machine.close(at: .now))
            case .sendTransportPing:
                connection.sendPing()
            case .scheduleTimer(let timer, let deadline):
                timers[timer]?.cancel()
                timers[timer] = Task { [weak self] in
                    guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                    await self?.timerFired(timer)
                }
            case .closeTransport:
                closeRequested = true
            case .connectionEnded(let reason):
                log?("session \(session): ended (\(reason))")
                ended = true
                for task in timers.values { task.cancel() }
                timers = [:]
                await namespace.close(session: session)
            }
        }
        if closeRequested { connection.close() }
    }

    private func timerFired(_ timer: ServerConnectionTimer) async {
        await perform(machine.timerFired(timer, at: .now))
    }

    /// Runs one request against the namespace and returns its single response.
    private func answer(_ request: ClientRequest) async -> ServerResponse {
        switch request {
        case .stats:
            return .ok
        case .auth(let credential):
            return await authenticate(credential, kind: .firebaseToken)
        case .googleAuth(let credential):
            return await authenticate(credential, kind: .googleAccessToken)
        case .unauth:
            auth = .unauthenticated
            await namespace.reauthorize(session: session, auth: auth)
            return .ok
        case .appCheck, .unappCheck:
            return .ok
        case .listen(let listen):
            return await namespace.listen(
                session: session, path: listen.path, query: listen.query, tag: listen.tag, auth: auth)
        case .unlisten(let path, _, let tag):
            return await namespace.unlisten(session: session, path: path, tag: tag)
        case .put(let path, let data, let hash):
            return await namespace.put(session: session, path: path, data: data, hash: hash, auth: auth)
        case .merge(let path, let data):
            return await namespace.merge(session: session, path: path, children: data, auth: auth)
        case .onDisconnectPut(let path, let data):
            return await namespace.onDisconnectPut(session: session, path: path, data: data, auth: auth)
        case .onDisconnectMerge(let path, let data):
            return await namespace.onDisconnectMerge(session: session, path: path, children: data, auth: auth)
        case .onDisconnectCancel(let path):
            return await namespace.onDisconnectCancel(session: session, path: path)
        case .get(let path, let query):
            return await namespace.get(path: path, query: query, auth: auth)
        case .unknown(let action, _):
            return .failure(.failure, "Unknown action \"\(action)\"")
        }
    }

    /// Records a credential (the access policy decides what it allows) and re-checks the
    /// connection's listens under it.
    private func authenticate(_ credential: AuthCredential, kind: ConnectionAuth.CredentialKind) async -> ServerResponse
    {
        auth = ConnectionAuth(
            credential: credential.credential, kind: kind, authVariable: credential.authVariable,
            actsUnauthenticated: credential.actsUnauthenticated)
        await namespace.reauthorize(session: session, auth: auth)
        return ServerResponse(
            status: .ok, data: .object([JSONMember("auth", .null), JSONMember("expires", .null)]))
    }
}
