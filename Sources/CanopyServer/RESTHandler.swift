import CanopyTree
import CanopyWire
import Synchronization

/// Serves the REST API and its Server-Sent Events streams (protocol.md §11) for a
/// ``CanopyServer``, independent of the HTTP server in front of it: a ``RESTRequest`` in,
/// a ``RESTReply`` out.
///
/// - The namespace is the `ns` parameter, else the first label of a `Host` with three or
///   more labels, else the server's default namespace (``CanopyServer/Configuration``).
/// - Paths end in `.json` (`/.json` is the root); keys are validated like wire keys.
/// - `GET` answers the data (plain form with the array rule, or export form with
///   `format=export`), filtered by `orderBy` & co, or shallow; with
///   `Accept: text/event-stream` it answers a ``RESTStream``.
/// - `PUT`, `POST` (a server-generated push id, answered `{"name": id}`), `PATCH` (an
///   atomic multi-path update) and `DELETE` write through the namespace, so websocket
///   listeners see REST writes and REST streams see websocket writes. A `POST` with
///   `X-HTTP-Method-Override` (or `x-http-method-override=`) acts as that method.
/// - ETags are the simple hash of protocol.md §6.1 of the data at the path (`null_etag` when
///   empty): `X-Firebase-ETag: true` asks for one, `if-match` makes `PUT`/`DELETE`
///   conditional (`412` with the current `ETag` and data on mismatch), `if-none-match` on
///   `GET` answers `304` when unchanged.
/// - Errors are `{"error": "…"}` with the statuses of §11.5: `400` malformed request, `401`
///   `Permission denied` (the access policy refused, or `.info`), `404` unknown namespace,
///   `405` other methods, `412` failed precondition, `413` over `writeSizeLimit`.
public final class RESTHandler: Sendable {
    /// Settings of the REST API.
    public struct Configuration: Sendable {
        /// The largest request body accepted by default: 256 MB (protocol.md §1.1).
        public static let defaultMaximumWriteBytes = 256 * 1024 * 1024
        /// The default keep-alive period of event streams: 30 s.
        public static let defaultKeepAliveInterval: Duration = .seconds(30)

        /// The largest request body accepted; a larger write is refused with `400`.
        public var maximumWriteBytes: Int
        /// Makes the timer of one event stream: each element is a keep-alive period that
        /// has passed. A stream sends `keep-alive` at a tick when it sent nothing since the
        /// previous tick, and re-checks read access and the credential at every tick.
        public var keepAliveTicks: @Sendable () -> AsyncStream<Void>
        /// Whether a query ordered by a child that the access policy reports as unindexed
        /// (the `no_index` listen warning) is refused with `400` instead of answered.
        public var rejectsUnindexedQueries: Bool
        /// Whether a credential is still valid at a server time (ms since the Unix epoch).
        /// Requests with an invalid credential are refused with `401`; an event stream whose
        /// credential stops being valid ends with `auth_revoked`.
        public var isCredentialValid: @Sendable (ConnectionAuth, Int64) -> Bool

        /// Creates a configuration: a 256 MB request limit, keep-alives every 30 s, unindexed
        /// queries answered, and every credential valid.
        public init(
            maximumWriteBytes: Int = Configuration.defaultMaximumWriteBytes,
            keepAliveTicks: @escaping @Sendable () -> AsyncStream<Void> = Configuration.ticks(
                every: Configuration.defaultKeepAliveInterval),
            rejectsUnindexedQueries: Bool = false,
            isCredentialValid: @escaping @Sendable (ConnectionAuth, Int64) -> Bool = { _, _ in true }
        ) {
            self.maximumWriteBytes = maximumWriteBytes
            self.keepAliveTicks = keepAliveTicks
            self.rejectsUnindexedQueries = rejectsUnindexedQueries
            self.isCredentialValid = isCredentialValid
        }

        /// A timer factory whose streams tick every `interval` until they are dropped.
        public static func ticks(every interval: Duration) -> @Sendable () -> AsyncStream<Void> {
            {
                AsyncStream { continuation in
                    let timer = Task {
                        while true {
                            do {
                                try await Task.sleep(for: interval)
                            } catch {
                                break
                            }
                            continuation.yield()
                        }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in timer.cancel() }
                }
            }
        }
    }

    /// The methods the API serves.
    private static let methods: Set<String> = ["GET", "PUT", "POST", "PATCH", "DELETE"]

    /// The server whose namespaces are served.
    public let server: CanopyServer
    /// The settings.
    public let configuration: Configuration
    private let pushIDs: Mutex<PushIDGenerator>
    private let streams: Mutex<Int>
    /// The session REST writes are made as (writes do not need an open session).
    private let writer = ServerSessionID("rest")

    /// Creates a handler serving `server`'s namespaces.
    public init(server: CanopyServer, configuration: Configuration = Configuration()) {
        self.server = server
        self.configuration = configuration
        self.pushIDs = Mutex(PushIDGenerator(clock: server.configuration.clock))
        self.streams = Mutex(0)
    }

    /// The number of event streams open now (a stream closes after `cancel` or
    /// `auth_revoked`, or when its consumer stops).
    public var openStreamCount: Int {
        streams.withLock { $0 }
    }

    /// Serves a request given as its raw request line parts: `target` is percent-decoded
    /// here (see ``RESTRequest/init(method:target:headers:body:)``).
    public func handle(method: String, target: String, headers: RESTHeaders, body: [UInt8] = []) async -> RESTReply {
        do {
            return await handle(try RESTRequest(method: method, target: target, headers: headers, body: body))
        } catch {
            return .response(error.response)
        }
    }

    /// Serves one request. Never throws: every failure is an error response.
    public func handle(_ request: RESTRequest) async -> RESTReply {
        do throws(RESTError) {
            return try await serve(request)
        } catch {
            return .response(error.response)
        }
    }

    // MARK: Dispatch

    private func serve(_ request: RESTRequest) async throws(RESTError) -> RESTReply {
        let parameters = try RESTParameters(request)
        let method = try effectiveMethod(of: request, parameters)
        let path = try Self.dataPath(request.path)
        if parameters.auth.isAuthenticated,
            !configuration.isCredentialValid(parameters.auth, server.configuration.clock())
        {
            throw RESTError(status: 401, message: "The credential is invalid or has expired")
        }
        let namespace = try await namespace(for: request, parameters)
        switch method {
        case "GET":
            if Self.wantsEventStream(request) {
                return .stream(try await stream(path: path, parameters: parameters, namespace: namespace))
            }
            return .response(try await get(request, parameters, path: path, namespace: namespace))
        case "PUT":
            let body = try writeBody(of: request, parameters)
            return .response(try await put(body, request, parameters, path: path, namespace: namespace))
        case "DELETE":
            return .response(try await put(.null, request, parameters, path: path, namespace: namespace))
        case "POST":
            return .response(try await post(request, parameters, path: path, namespace: namespace))
        default:
            return .response(try await patch(request, parameters, path: path, namespace: namespace))
        }
    }

    /// The method, after a `POST`'s override; anything but the five methods is a `405`.
    private func effectiveMethod(of request: RESTRequest, _ parameters: RESTParameters) throws(RESTError) -> String {
        let method = request.method.uppercased()
        guard Self.methods.contains(method) else {
            throw RESTError(status: 405, message: "Method \(request.method) is not supported")
        }
        guard method == "POST",
            let override = request.headers["X-HTTP-Method-Override"] ?? parameters.methodOverride
        else { return method }
        let overridden = override.uppercased()
        guard ["PUT", "PATCH", "DELETE", "POST"].contains(overridden) else {
            throw RESTError(status: 405, message: "Method override \(override) is not supported")
        }
        return overridden
    }

    /// The data path of a request path: it must end in `.json`; keys are validated.
    static func dataPath(_ text: String) throws(RESTError) -> Path {
        guard text.utf8.count >= 5, text.utf8.suffix(5).elementsEqual(".json".utf8) else {
            throw .badRequest("The path must end in .json (for example /users/alice.json; /.json is the root)")
        }
        let location = String(decoding: text.utf8.dropLast(5), as: UTF8.self)
        let path = Path(location)
        do {
            try TreeValidation.validateReadPath(path)
        } catch {
            throw .badRequest(error.message)
        }
        return path
    }

    /// The namespace a request names, opened on first use; `404` when it cannot be opened.
    private func namespace(for request: RESTRequest, _ parameters: RESTParameters) async throws(RESTError)
        -> ServerNamespace
    {
        let connection = ConnectionRequest(
            host: request.headers["Host"] ?? "",
            parameters: parameters.namespace.map { [ConnectionTarget.Parameter("ns", $0)] } ?? [])
        let name = server.namespaceName(for: connection)
        do {
            return try await server.namespace(named: name)
        } catch {
            throw RESTError(status: 404, message: "Namespace \"\(name)\" is unavailable: \(error)")
        }
    }

    // MARK: Reads

    private func get(
        _ request: RESTRequest, _ parameters: RESTParameters, path: Path, namespace: ServerNamespace
    ) async throws(RESTError) -> RESTResponse {
        let ifNoneMatch = request.headers["if-none-match"]
        let reportsETag = Self.isTrue(request.headers["X-Firebase-ETag"]) || ifNoneMatch != nil
        if reportsETag && (parameters.shallow || parameters.hasQuery) {
            throw .badRequest("ETags cannot be combined with shallow or with query parameters")
        }
        let started = ContinuousClock.now
        let root = await namespace.value(at: .root)
        try authorizeRead(path: path, parameters: parameters, root: root)
        let data = root.child(at: path)
        var headers = RESTHeaders()
        if reportsETag { headers.set("ETag", Self.etag(of: data)) }
        if let ifNoneMatch, ifNoneMatch == Self.etag(of: data) {
            return RESTResponse(status: 304, headers: headers)
        }
        let json: JSONValue
        if parameters.shallow {
            json = Self.shallowJSON(data)
        } else {
            json = render(parameters.hasQuery ? parameters.query.filter(data) : data, parameters)
        }
        let response = Self.success(json, parameters, headers: headers, isRead: true)
        if let timeout = parameters.timeout, ContinuousClock.now - started > timeout {
            throw .badRequest("The read took longer than the request's timeout")
        }
        return response
    }

    /// Refuses `.info`, reads the access policy denies, and (when configured) queries on
    /// unindexed children.
    private func authorizeRead(path: Path, parameters: RESTParameters, root: Node) throws(RESTError) {
        guard !Self.isInfo(path) else { throw .permissionDenied }
        let read = ReadAccess(
            path: path, query: parameters.hasQuery ? parameters.query.wireObject : nil, auth: parameters.auth,
            root: root, now: server.configuration.clock())
        let policy = server.configuration.policy
        guard policy.allowsRead(read) else { throw .permissionDenied }
        if configuration.rejectsUnindexedQueries, parameters.hasQuery, case .child(let child) = parameters.query.index,
            policy.listenWarnings(read).contains("no_index")
        {
            let childText = child.keys.map(\.string).joined(separator: "/")
            throw .badRequest(
                "Index not defined, add \".indexOn\": \"\(childText)\", for path \"\(path.wireString)\", to the rules")
        }
    }

    private func stream(path: Path, parameters: RESTParameters, namespace: ServerNamespace) async throws(RESTError)
        -> RESTStream
    {
        if parameters.shallow { throw .badRequest("shallow cannot be used with an event stream") }
        try authorizeRead(path: path, parameters: parameters, root: await namespace.value(at: .root))
        let feed = ServerSentEventFeed(
            namespace: namespace, path: path, query: parameters.hasQuery ? parameters.query : nil,
            exportFormat: parameters.exportFormat, auth: parameters.auth, policy: server.configuration.policy,
            clock: server.configuration.clock, keepAliveTicks: configuration.keepAliveTicks,
            isCredentialValid: configuration.isCredentialValid)
        streams.withLock { $0 += 1 }
        do {
            return try await feed.start { [weak self] in self?.streams.withLock { $0 -= 1 } }
        } catch {
            streams.withLock { $0 -= 1 }
            throw error
        }
    }

    // MARK: Writes

    /// `PUT` (and `DELETE`, which puts `null`), conditional with `if-match`.
    private func put(
        _ body: JSONValue, _ request: RESTRequest, _ parameters: RESTParameters, path: Path,
        namespace: ServerNamespace
    ) async throws(RESTError) -> RESTResponse {
        guard !Self.isInfo(path) else { throw .permissionDenied }
        try await checkWriteCost(request, parameters, replacing: [path], in: namespace)
        let ifMatch = request.headers["if-match"]
        let hash = ifMatch.map { $0 == "null_etag" ? "" : $0 }
        let (response, data) = await namespace.putReadingBack(
            session: writer, path: path, data: body, hash: hash, auth: parameters.auth,
            writeLimit: configuration.maximumWriteBytes)
        if response.status == .dataStale {
            return RESTResponse.json(render(data, parameters), status: 412).with("ETag", Self.etag(of: data))
        }
        guard response.status.isOK else { throw Self.error(from: response) }
        var headers = RESTHeaders()
        if ifMatch != nil || Self.isTrue(request.headers["X-Firebase-ETag"]) {
            headers.set("ETag", Self.etag(of: data))
        }
        return Self.success(render(data, parameters), parameters, headers: headers, isRead: false)
    }

    /// `POST`: the body is written at a new push id below the path.
    private func post(
        _ request: RESTRequest, _ parameters: RESTParameters, path: Path, namespace: ServerNamespace
    ) async throws(RESTError) -> RESTResponse {
        guard !Self.isInfo(path) else { throw .permissionDenied }
        try Self.refuseCondition(request, method: "POST")
        let body = try writeBody(of: request, parameters)
        try await checkWriteCost(request, parameters, replacing: [], in: namespace)
        let id = pushIDs.withLock { $0.next() }
        let (response, _) = await namespace.putReadingBack(
            session: writer, path: path.child(ChildKey(id)), data: body, hash: nil, auth: parameters.auth,
            writeLimit: configuration.maximumWriteBytes)
        guard response.status.isOK else { throw Self.error(from: response) }
        return Self.success(.object([JSONMember("name", .string(id))]), parameters, headers: [:], isRead: false)
    }

    /// `PATCH`: an atomic multi-path update; answers each member with the data it left.
    private func patch(
        _ request: RESTRequest, _ parameters: RESTParameters, path: Path, namespace: ServerNamespace
    ) async throws(RESTError) -> RESTResponse {
        guard !Self.isInfo(path) else { throw .permissionDenied }
        try Self.refuseCondition(request, method: "PATCH")
        let body = try writeBody(of: request, parameters)
        guard case .object(let members) = body else {
            throw .badRequest("A PATCH body must be a JSON object whose keys are paths")
        }
        try await checkWriteCost(request, parameters, replacing: members.map { path.child($0.key) }, in: namespace)
        let (response, data) = await namespace.mergeReadingBack(
            session: writer, path: path, children: body, auth: parameters.auth,
            writeLimit: configuration.maximumWriteBytes)
        guard response.status.isOK else { throw Self.error(from: response) }
        let applied = members.map { JSONMember($0.key, render(data.child(at: Path($0.key)), parameters)) }
        return Self.success(.object(applied), parameters, headers: [:], isRead: false)
    }

    /// The parsed body of a write, within the size limits.
    private func writeBody(of request: RESTRequest, _ parameters: RESTParameters) throws(RESTError) -> JSONValue {
        let size = request.body.count
        if size > configuration.maximumWriteBytes {
            throw .badRequest(
                "Data too large: the body is \(size) bytes, more than the maximum of \(configuration.maximumWriteBytes)"
            )
        }
        do {
            return try JSONParser.parse(request.body)
        } catch {
            throw .badRequest("Invalid data; couldn't parse JSON object, array, or value: \(error)")
        }
    }

    /// Refuses a write whose estimated cost — its body plus the data it replaces at
    /// `targets` — exceeds the request's `writeSizeLimit` budget, with `413`.
    private func checkWriteCost(
        _ request: RESTRequest, _ parameters: RESTParameters, replacing targets: [Path], in namespace: ServerNamespace
    ) async throws(RESTError) {
        guard let limit = parameters.writeSizeLimit, let budget = limit.byteBudget else { return }
        var cost = request.body.count
        for target in targets where cost <= budget {
            let replaced = await namespace.value(at: target)
            cost += RESTWriteSizeLimit.estimatedSize(of: replaced, upTo: budget - cost)
        }
        if cost > budget {
            throw RESTError(
                status: 413,
                message: "The write's estimated size of \(cost) bytes (body and replaced data) exceeds "
                    + "writeSizeLimit=\(limit.rawValue) (\(budget) bytes)")
        }
    }

    /// `if-match` is honoured on `PUT` and `DELETE` only.
    private static func refuseCondition(_ request: RESTRequest, method: String) throws(RESTError) {
        if request.headers["if-match"] != nil {
            throw .badRequest("if-match is supported on PUT and DELETE, not on \(method)")
        }
    }

    // MARK: Rendering

    /// The data as the request asked: export form with `format=export`, else plain.
    private func render(_ node: Node, _ parameters: RESTParameters) -> JSONValue {
        parameters.exportFormat ? node.exportJSON() : node.valueJSON()
    }

    /// A successful response: `204` for `print=silent`, JSONP for `callback`, an attachment
    /// for `download` (reads only), else JSON (indented for `print=pretty`).
    private static func success(_ json: JSONValue, _ parameters: RESTParameters, headers: RESTHeaders, isRead: Bool)
        -> RESTResponse
    {
        if parameters.print == .silent { return RESTResponse(status: 204, headers: headers) }
        var response = RESTResponse.json(json, pretty: parameters.print == .pretty)
        for field in headers.fields { response.headers.set(field.name, field.value) }
        guard isRead else { return response }
        if let callback = parameters.callback {
            response.body = Array("\(callback)(".utf8) + response.body + Array(");".utf8)
            response.headers.set("Content-Type", "application/javascript; charset=utf-8")
        }
        if let download = parameters.download {
            let name = download.unicodeScalars.filter {
                $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0.value != 0x7F
            }
            response.headers.set(
                "Content-Disposition", "attachment; filename=\"\(String(String.UnicodeScalarView(name)))\"")
        }
        return response
    }

    /// `shallow=true`: a leaf as its value; each child of a children node as `true`.
    static func shallowJSON(_ node: Node) -> JSONValue {
        if node.isEmpty { return .null }
        if node.isLeaf { return node.valueJSON() }
        return .object(node.children.entries.map { JSONMember($0.0.string, .bool(true)) })
    }

    /// The ETag of data: its simple hash, or `null_etag` when empty.
    static func etag(of node: Node) -> String {
        node.isEmpty ? "null_etag" : node.hash
    }

    /// The REST error for a namespace's non-`ok` answer.
    static func error(from response: ServerResponse) -> RESTError {
        switch response.status {
        case .invalidData, .writeTooBig: return .badRequest(response.reason ?? "Invalid data")
        case .permissionDenied: return .permissionDenied
        default: return RESTError(status: 500, message: response.reason ?? response.status.rawValue)
        }
    }

    private static func isInfo(_ path: Path) -> Bool {
        path.front.map { $0.string.utf8.elementsEqual(".info".utf8) } ?? false
    }

    private static func isTrue(_ header: String?) -> Bool {
        header?.lowercased() == "true"
    }

    private static func wantsEventStream(_ request: RESTRequest) -> Bool {
        request.headers["Accept"]?.lowercased().contains("text/event-stream") ?? false
    }
}

extension RESTResponse {
    /// The response with header `name` set to `value`.
    fileprivate func with(_ name: String, _ value: String) -> RESTResponse {
        var copy = self
        copy.headers.set(name, value)
        return copy
    }
}
