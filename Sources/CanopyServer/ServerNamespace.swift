import CanopyStorage
import CanopyTree
import CanopyWire

/// The authoritative state of one namespace (database): its tree, the listens of every
/// connection, and each connection's onDisconnect operations.
///
/// One actor per namespace; every connection's requests enter it in order, so writes are
/// serialised and fan-out happens inside the write: when a write method returns, the pushes
/// it caused have already been queued on every affected connection — including the writer's
/// own, before the writer's response (protocol.md §3.6). Fan-out visits connections in the
/// order they opened and their listens in the order they were registered.
///
/// The tree is mirrored in memory and written through to the `TreeStore`; a write is
/// committed to the store before anything is pushed or acknowledged.
public actor ServerNamespace {
    /// The namespace's name (the `ns` of the connections that use it).
    public nonisolated let name: String
    private let store: any TreeStore
    private let policy: any AccessPolicy
    private let clock: @Sendable () -> Int64
    private var root: Node
    /// Open connections in the order they opened (the fan-out order).
    private var sessions: [NamespaceSession] = []
    /// The position of each open connection in ``sessions``.
    private var sessionIndex: [ServerSessionID: Int] = [:]

    /// Opens a namespace over `store`, reading its current tree.
    ///
    /// - Parameters:
    ///   - name: The namespace's name.
    ///   - store: Where the tree is persisted.
    ///   - policy: Who may read and write what.
    ///   - clock: The server time in milliseconds since the Unix epoch, used to resolve
    ///     server values and for rules' `now`.
    /// - Throws: The store's error when the tree cannot be read.
    public init(
        name: String, store: any TreeStore, policy: any AccessPolicy = OpenAccessPolicy(),
        clock: @escaping @Sendable () -> Int64
    ) throws {
        self.name = name
        self.store = store
        self.policy = policy
        self.clock = clock
        self.root = try store.read(at: .root)
    }

    // MARK: Sessions

    /// Starts tracking a connection. `sink` must enqueue each push for sending, in call order,
    /// without waiting.
    public func open(session: ServerSessionID, sink: @escaping @Sendable (ServerPush) -> Void) {
        if let index = sessionIndex[session] {
            sessions[index] = NamespaceSession(id: session, sink: sink)
        } else {
            sessionIndex[session] = sessions.count
            sessions.append(NamespaceSession(id: session, sink: sink))
        }
    }

    /// Ends a connection: drops its listens, then runs its pending onDisconnect operations in
    /// order, resolving server values now, and fans their results out like normal writes.
    public func close(session: ServerSessionID) {
        guard let index = sessionIndex[session] else { return }
        var queue = sessions.remove(at: index).onDisconnect
        sessionIndex[session] = nil
        for later in sessions.indices.dropFirst(index) { sessionIndex[sessions[later].id] = later }
        for pending in queue.drain() {
            let now = clock()
            let resolved = resolve(pending.value, at: pending.path, now: now, against: root)
            let oldRoot = root
            let newRoot = root.updating(at: pending.path, resolved)
            if (try? commitOverwrite(at: pending.path, newRoot: newRoot)) != nil {
                fanOut(.overwrite(pending.path), oldRoot: oldRoot)
            }
        }
    }

    /// Closes the store. Later writes fail with status `failure`; reads still see the last
    /// committed tree.
    public func closeStore() {
        store.close()
    }

    /// Whether a connection is open here.
    public func isOpen(session: ServerSessionID) -> Bool {
        sessionIndex[session] != nil
    }

    /// The number of listens the open connections hold (for metrics).
    public var listenCount: Int {
        sessions.reduce(0) { $0 + $1.listens.count }
    }

    /// The current data at `path` (for tools, REST and tests).
    public func value(at path: Path) -> Node {
        root.child(at: path)
    }

    /// Re-checks a connection's listens after its authentication changed (`auth`, `gauth`,
    /// `unauth`) and revokes those the policy no longer allows with a `c` push — naming a
    /// tagged query by a one-element array holding its query object as the client sent it.
    public func reauthorize(session: ServerSessionID, auth: ConnectionAuth) {
        guard let index = sessionIndex[session] else { return }
        let now = clock()
        var kept: [ServerListen] = []
        for listen in sessions[index].listens {
            let read = ReadAccess(path: listen.path, query: listen.wireQuery, auth: auth, root: root, now: now)
            if policy.allowsRead(read) {
                kept.append(listen)
            } else {
                sessions[index].sink(.listenRevoked(path: listen.path, queries: listen.wireQuery.map { .array([$0]) }))
            }
        }
        sessions[index].listens = kept
    }

    // MARK: Listens and gets

    /// A `q` request: registers a default listen (no `tag`) or a tagged query listen at
    /// `path`, pushes the current data (filtered for a query), and answers `ok` with `{}` or
    /// `{"w": [...]}`.
    ///
    /// A listen with the same path and tag replaces the earlier one.
    public func listen(
        session: ServerSessionID, path: Path, query: JSONValue?, tag: Int64?, auth: ConnectionAuth
    ) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        guard let index = sessionIndex[session] else {
            return .failure(.failure, "The connection is closed")
        }
        do {
            try TreeValidation.validateReadPath(path)
        } catch {
            return .failure(.invalidData, error.message)
        }
        var params: QueryParams?
        if tag != nil {
            do {
                params = try QueryParams(wire: query ?? .object([]))
            } catch {
                return .failure(.invalidData, "Invalid query: \(error)")
            }
        }
        let read = ReadAccess(path: path, query: tag == nil ? nil : query, auth: auth, root: root, now: clock())
        guard policy.allowsRead(read) else { return Self.permissionDenied }
        let warnings = policy.listenWarnings(read)

        let data = root.child(at: path)
        let result = params.map { $0.filter(data) } ?? data
        let listen = ServerListen(
            path: path, tag: tag, query: params, wireQuery: tag == nil ? nil : query, lastResult: result)
        if let existing = sessions[index].listens.firstIndex(where: { $0.matches(path: path, tag: tag) }) {
            sessions[index].listens[existing] = listen
        } else {
            sessions[index].listens.append(listen)
        }
        sessions[index].sink(.data(path: path, data: result.exportJSON(), tag: tag))
        if warnings.isEmpty { return ServerResponse(status: .ok, data: .object([])) }
        return ServerResponse(status: .ok, data: .object([JSONMember("w", .array(warnings.map { .string($0) }))]))
    }

    /// An `n` request: removes the listen at `path` with `tag` (`nil` for the default
    /// listen). Always `ok`, even when no such listen exists.
    public func unlisten(session: ServerSessionID, path: Path, tag: Int64?) -> ServerResponse {
        if let index = sessionIndex[session] {
            sessions[index].listens.removeAll { $0.matches(path: path, tag: tag) }
        }
        return .ok
    }

    /// A `g` request: the data at `path` in export form, filtered when `query` sets a range
    /// or limit; `null` when empty. No listen is created.
    public func get(path: Path, query: JSONValue?, auth: ConnectionAuth) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        do {
            try TreeValidation.validateReadPath(path)
        } catch {
            return .failure(.invalidData, error.message)
        }
        var params: QueryParams?
        if let query {
            do {
                params = try QueryParams(wire: query)
            } catch {
                return .failure(.invalidData, "Invalid query: \(error)")
            }
        }
        guard policy.allowsRead(ReadAccess(path: path, query: query, auth: auth, root: root, now: clock())) else {
            return Self.permissionDenied
        }
        let data = root.child(at: path)
        guard let params, !params.loadsAllData else { return ServerResponse(status: .ok, data: data.exportJSON()) }
        return ServerResponse(status: .ok, data: params.filter(data).exportJSON())
    }

    // MARK: Writes

    /// A `p` request: overwrites `path` with `data` (export form, server values resolved
    /// now). With `hash`, a compare-and-set: when the simple hash of the current data at
    /// `path` differs (`""` meaning empty), nothing is written and the answer is
    /// `datastale`. Data serialized larger than `writeLimit` bytes is refused (`write_too_big`).
    public func put(
        session: ServerSessionID, path: Path, data: JSONValue, hash: String?, auth: ConnectionAuth,
        writeLimit: Int = TreeValidation.maxWriteBytes
    ) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        let node: Node
        do {
            try TreeValidation.validateWriteSize(byteCount: data.serializedBytes().count, limit: writeLimit)
            node = try TreeValidation.validatedNode(data, forWriteAt: path)
        } catch {
            return Self.refusal(error)
        }
        if let hash, root.child(at: path).hash != hash {
            return .failure(.dataStale, "hash mismatch")
        }
        let now = clock()
        let resolved = resolve(node, at: path, now: now, against: root)
        let newRoot = root.updating(at: path, resolved)
        guard policy.allowsWrite(WriteAccess(path: path, auth: auth, root: root, newRoot: newRoot, now: now)) else {
            return Self.permissionDenied
        }
        let oldRoot = root
        do {
            try commitOverwrite(at: path, newRoot: newRoot)
        } catch {
            return .failure(.failure, "The write could not be stored: \(error)")
        }
        fanOut(.overwrite(path), oldRoot: oldRoot)
        return .ok
    }

    /// An `m` request: for each member of `children` (an object whose keys are relative
    /// paths), overwrites `path/key` with its value — all as one atomic write. Children
    /// serialized larger than `writeLimit` bytes are refused (`write_too_big`).
    public func merge(
        session: ServerSessionID, path: Path, children: JSONValue, auth: ConnectionAuth,
        writeLimit: Int = TreeValidation.maxWriteBytes
    ) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        let writes: [(Path, Node)]
        do {
            try TreeValidation.validateWriteSize(byteCount: children.serializedBytes().count, limit: writeLimit)
            writes = try Self.validatedMerge(children, at: path)
        } catch {
            return Self.refusal(error)
        }
        if writes.isEmpty { return .ok }
        let now = clock()
        var newRoot = root
        for (relative, node) in writes {
            let target = path.child(relative)
            newRoot = newRoot.updating(at: target, resolve(node, at: target, now: now, against: root))
        }
        for (relative, _) in writes {
            let access = WriteAccess(path: path.child(relative), auth: auth, root: root, newRoot: newRoot, now: now)
            guard policy.allowsWrite(access) else { return Self.permissionDenied }
        }
        let oldRoot = root
        do {
            try commitMerge(at: path, relatives: writes.map(\.0), newRoot: newRoot)
        } catch {
            return .failure(.failure, "The write could not be stored: \(error)")
        }
        fanOut(.merge(base: path, relatives: writes.map(\.0)), oldRoot: oldRoot)
        return .ok
    }

    // MARK: onDisconnect

    /// An `o` request: queues an overwrite of `path` with `data` for when the connection
    /// ends. Data and permission are checked now; server values are resolved when it runs.
    public func onDisconnectPut(
        session: ServerSessionID, path: Path, data: JSONValue, auth: ConnectionAuth
    ) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        guard let index = sessionIndex[session] else {
            return .failure(.failure, "The connection is closed")
        }
        let node: Node
        do {
            node = try TreeValidation.validatedNode(data, forWriteAt: path)
        } catch {
            return .failure(.invalidData, error.message)
        }
        guard allowsQueuedWrites([(Path.root, node)], at: path, auth: auth) else { return Self.permissionDenied }
        sessions[index].onDisconnect.set(node, at: path)
        return .ok
    }

    /// An `om` request: queues a merge (relative paths → data) at `path` for when the
    /// connection ends.
    public func onDisconnectMerge(
        session: ServerSessionID, path: Path, children: JSONValue, auth: ConnectionAuth
    ) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        guard let index = sessionIndex[session] else {
            return .failure(.failure, "The connection is closed")
        }
        let writes: [(Path, Node)]
        do {
            writes = try Self.validatedMerge(children, at: path)
        } catch {
            return .failure(.invalidData, error.message)
        }
        guard allowsQueuedWrites(writes, at: path, auth: auth) else { return Self.permissionDenied }
        sessions[index].onDisconnect.merge(writes, at: path)
        return .ok
    }

    /// An `oc` request: cancels every queued onDisconnect operation at or below `path`.
    public func onDisconnectCancel(session: ServerSessionID, path: Path) -> ServerResponse {
        guard !Self.isInfo(path) else { return Self.permissionDenied }
        if let index = sessionIndex[session] {
            sessions[index].onDisconnect.cancel(at: path)
        }
        return .ok
    }

    // MARK: Internals

    /// The answer to reads and writes the policy refuses, and to anything under `.info`.
    private static let permissionDenied = ServerResponse.failure(.permissionDenied, "Permission denied")

    /// The answer to data that fails validation: `write_too_big` for oversized writes,
    /// `invalid_data` for everything else.
    private static func refusal(_ error: TreeError) -> ServerResponse {
        if case .writeTooBig = error { return .failure(.writeTooBig, error.message) }
        return .failure(.invalidData, error.message)
    }

    /// Whether a path lies in the client-local `.info` tree.
    private static func isInfo(_ path: Path) -> Bool {
        path.front?.string == ".info"
    }

    /// Validates the body of an `m`/`om`: an object of relative paths, none containing
    /// another.
    private static func validatedMerge(_ children: JSONValue, at path: Path) throws(TreeError) -> [(Path, Node)] {
        guard case .object(let members) = children else {
            throw TreeError.invalidPath(path: path.wireString, reason: "a merge must be a JSON object")
        }
        return try TreeValidation.validatedUpdate(members, at: path).map { ($0.path, $0.node) }
    }

    /// Whether queued writes may be registered: rules see them as if they ran now.
    private func allowsQueuedWrites(_ writes: [(Path, Node)], at path: Path, auth: ConnectionAuth) -> Bool {
        let now = clock()
        var newRoot = root
        for (relative, node) in writes {
            let target = path.child(relative)
            newRoot = newRoot.updating(at: target, resolve(node, at: target, now: now, against: root))
        }
        return writes.allSatisfy { relative, _ in
            policy.allowsWrite(
                WriteAccess(path: path.child(relative), auth: auth, root: root, newRoot: newRoot, now: now))
        }
    }

    /// Replaces server-value placeholders in `node`, to be written at `path`, using the time
    /// `now` and the data currently in `tree`.
    private func resolve(_ node: Node, at path: Path, now: Int64, against tree: Node) -> Node {
        ServerValueResolver.resolve(node, existing: tree.child(at: path), now: now)
    }

    /// Stores the new tree's data at `path` (the node of a `.priority` path), then adopts
    /// `newRoot`.
    private func commitOverwrite(at path: Path, newRoot: Node) throws {
        let location = AppliedWrite.node(of: path)
        try store.overwrite(at: location, with: newRoot.child(at: location))
        root = newRoot
    }

    /// Stores the locations of a merge atomically, then adopts `newRoot`.
    private func commitMerge(at path: Path, relatives: [Path], newRoot: Node) throws {
        if relatives.contains(where: { $0.back?.isPriority == true }) || path.back?.isPriority == true {
            let location = AppliedWrite.node(of: path)
            try store.overwrite(at: location, with: newRoot.child(at: location))
        } else {
            try store.merge(at: path, children: relatives.map { ($0, newRoot.child(at: path.child($0))) })
        }
        root = newRoot
    }

    /// Queues the pushes a committed write causes on every connection, in connection order
    /// then listen order. `root` is already the new tree.
    private func fanOut(_ write: AppliedWrite, oldRoot: Node) {
        let locations = write.locations
        for s in sessions.indices {
            for l in sessions[s].listens.indices {
                let listen = sessions[s].listens[l]
                guard AppliedWrite.touches(locations, listen.path) else { continue }
                if let query = listen.query {
                    let window = query.filter(root.child(at: listen.path))
                    guard window != listen.lastResult else { continue }
                    for push in Self.windowPushes(at: listen.path, tag: listen.tag, from: listen.lastResult, to: window)
                    {
                        sessions[s].sink(push)
                    }
                    sessions[s].listens[l].lastResult = window
                } else if let push = defaultPush(for: listen.path, write: write, oldRoot: oldRoot) {
                    sessions[s].sink(push)
                }
            }
        }
    }

    /// The tagged pushes that turn a client's copy of a query result `old` into `new`.
    ///
    /// When few children changed, one `d` per child at `path/key`: first the children that
    /// left (`null`), then those that changed in place, then those that entered. In that
    /// order the client's copy never holds more children than the limit, so its own window
    /// logic never evicts a child the server kept. Otherwise (or when the result was empty
    /// or is no longer a set of children) one `d` with the whole new result at `path`.
    static func windowPushes(at path: Path, tag: Int64?, from old: Node, to new: Node) -> [ServerPush] {
        let whole = [ServerPush.data(path: path, data: new.exportJSON(), tag: tag)]
        guard !old.isEmpty, !old.isLeaf, !new.isEmpty, !new.isLeaf else { return whole }
        var left: [ChildKey] = []
        var changed: [(ChildKey, Node)] = []
        var entered: [(ChildKey, Node)] = []
        for key in old.children.orderedKeys where new.children[key] == nil {
            left.append(key)
        }
        for (key, node) in new.children.entries {
            if let previous = old.children[key] {
                if previous != node { changed.append((key, node)) }
            } else {
                entered.append((key, node))
            }
        }
        guard left.count + changed.count + entered.count < new.childCount else { return whole }
        return left.map { .data(path: path.child($0), data: .null, tag: tag) }
            + (changed + entered).map { .data(path: path.child($0.0), data: $0.1.exportJSON(), tag: tag) }
    }

    /// The push a default listen at `listenPath` gets for a write (protocol.md §4): the
    /// write itself when it lies at or below the listen, else the listen location's new value
    /// (or a merge of the written children below it) when that changed.
    private func defaultPush(for listenPath: Path, write: AppliedWrite, oldRoot: Node) -> ServerPush? {
        switch write {
        case .overwrite(let path):
            let location = AppliedWrite.node(of: path)
            if listenPath.contains(location) {
                return .data(path: location, data: root.child(at: location).exportJSON(), tag: nil)
            }
        case .merge(let base, let relatives):
            if listenPath.contains(base) {
                let members = relatives.map {
                    JSONMember(
                        $0.keys.map(\.string).joined(separator: "/"), root.child(at: base.child($0)).exportJSON())
                }
                return .merge(path: base, data: .object(members), tag: nil)
            }
            let affected = relatives.map { base.child($0) }.filter {
                listenPath.contains($0) || $0.contains(listenPath)
            }
            if !affected.isEmpty, affected.allSatisfy({ listenPath.contains($0) && $0 != listenPath }) {
                let members = affected.map { target in
                    JSONMember(
                        (target.relative(to: listenPath) ?? .root).keys.map(\.string).joined(separator: "/"),
                        root.child(at: target).exportJSON())
                }
                return .merge(path: listenPath, data: .object(members), tag: nil)
            }
        }
        let newValue = root.child(at: listenPath)
        guard newValue != oldRoot.child(at: listenPath) else { return nil }
        return .data(path: listenPath, data: newValue.exportJSON(), tag: nil)
    }
}
