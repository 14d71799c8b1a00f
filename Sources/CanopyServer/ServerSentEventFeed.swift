import CanopyTree
import CanopyWire

/// One REST event stream (protocol.md §11.7): a listen on a namespace whose pushes become
/// `put`/`patch` events relative to the stream's location.
///
/// The stream opens its own namespace session and listens at the location — a default
/// listen, or a tagged query listen when the request has query parameters — so the first
/// push, which becomes the first event, is a `put` at `/` of the current data (or query
/// result). Before each event and at each keep-alive tick the stream re-checks read access
/// and the credential; when access is gone it sends `cancel`, when the credential is no
/// longer valid `auth_revoked`, and ends. When the consumer stops, the session is closed.
struct ServerSentEventFeed: Sendable {
    /// What the stream's pump reacts to.
    private enum Input: Sendable {
        /// The namespace sent a push for the stream's listen.
        case push(ServerPush)
        /// A keep-alive period passed.
        case tick
    }

    let namespace: ServerNamespace
    let path: Path
    /// The query of a filtered stream; `nil` for the whole location.
    let query: QueryParams?
    let exportFormat: Bool
    let auth: ConnectionAuth
    let policy: any AccessPolicy
    let clock: @Sendable () -> Int64
    let keepAliveTicks: @Sendable () -> AsyncStream<Void>
    let isCredentialValid: @Sendable (ConnectionAuth, Int64) -> Bool

    /// Registers the listen and starts the stream; `onEnd` runs once the stream has ended
    /// and its session is closed.
    ///
    /// - Throws: ``RESTError`` when the listen is refused (`401` for a denied read), so the
    ///   client gets a plain error instead of a stream.
    func start(onEnd: @escaping @Sendable () -> Void) async throws(RESTError) -> RESTStream {
        let session = ServerSessionID.random()
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        await namespace.open(session: session) { input.yield(.push($0)) }
        let response = await namespace.listen(
            session: session, path: path, query: query?.wireObject, tag: query == nil ? nil : 1, auth: auth)
        guard response.status.isOK else {
            input.finish()
            await namespace.close(session: session)
            throw RESTHandler.error(from: response)
        }
        let ticks = keepAliveTicks()
        let ticker = Task {
            for await _ in ticks { input.yield(.tick) }
        }
        let (events, output) = AsyncStream.makeStream(of: ServerSentEvent.self)
        output.onTermination = { _ in input.finish() }
        let feed = self
        Task {
            await feed.pump(inputs, into: output)
            output.finish()
            input.finish()
            ticker.cancel()
            await feed.namespace.close(session: session)
            onEnd()
        }
        return RESTStream(
            headers: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"],
            events: events)
    }

    /// Turns inputs into events until the inputs end or the stream is cancelled.
    private func pump(_ inputs: AsyncStream<Input>, into output: AsyncStream<ServerSentEvent>.Continuation) async {
        var quiet = true
        for await item in inputs {
            if let last = await endingEvent() {
                output.yield(last)
                return
            }
            switch item {
            case .push(let push):
                guard let event = event(for: push) else { continue }
                output.yield(event)
                quiet = false
                if event == .cancel || event == .authRevoked { return }
            case .tick:
                if quiet { output.yield(.keepAlive) }
                quiet = true
            }
        }
    }

    /// `auth_revoked` when the credential is no longer valid, `cancel` when the location
    /// is no longer readable, else `nil`.
    private func endingEvent() async -> ServerSentEvent? {
        let now = clock()
        if auth.isAuthenticated, !isCredentialValid(auth, now) { return .authRevoked }
        let root = await namespace.value(at: .root)
        let read = ReadAccess(path: path, query: query?.wireObject, auth: auth, root: root, now: now)
        return policy.allowsRead(read) ? nil : .cancel
    }

    /// The event for a push: data and merges with their path relative to the stream's
    /// location and their data in the requested form; `cancel` for a revoked listen,
    /// `auth_revoked` for revoked authentication; `nil` for pushes streams do not show.
    private func event(for push: ServerPush) -> ServerSentEvent? {
        switch push {
        case .data(let at, let data, _):
            return .put(path: at.relative(to: path) ?? .root, data: form(data))
        case .merge(let at, let data, _):
            let relative = at.relative(to: path) ?? .root
            guard case .object(let members) = data else { return .patch(path: relative, data: data) }
            return .patch(path: relative, data: .object(members.map { JSONMember($0.key, form($0.value)) }))
        case .listenRevoked:
            return .cancel
        case .authRevoked:
            return .authRevoked
        case .rangeMerge, .appCheckRevoked, .securityDebug, .unknown:
            return nil
        }
    }

    /// Export-form data as the stream shows it: unchanged with `format=export`, else plain.
    private func form(_ exported: JSONValue) -> JSONValue {
        guard !exportFormat, let node = try? Node(json: exported) else { return exported }
        return node.valueJSON()
    }
}
