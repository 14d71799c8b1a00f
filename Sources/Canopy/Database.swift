import CanopySync
import CanopyTree
import CanopyWebSocket
import CanopyWire
import Foundation
import Synchronization

/// A connection to one database: the entry point of the client API.
///
/// Get the shared instance for a URL with ``database(url:)`` (one instance per URL, like
/// FirebaseDatabase), or compose an independent client over any transport with
/// ``init(url:transportFactory:)`` — for example a `LoopbackNetwork` that reaches an
/// in-process `CanopyServer`:
///
/// ```swift
/// let network = LoopbackNetwork()
/// let server = CanopyServer { _ in MemoryTreeStore() }
/// let listener = try network.listen(on: "db")
/// Task { await server.serve(listener) }
/// let database = Database(url: "loopback://db", transportFactory: network)
/// try await database.reference(withPath: "greeting").setValue("hello")
/// ```
///
/// Configuration (``callbackQueue``, ``useEmulator(host:port:)`` or Firebase's
/// ``useEmulator(withHost:port:)``, ``isPersistenceEnabled``,
/// ``persistenceCacheSizeBytes``) belongs before the first use:
/// the first call that reaches the engine (a write, an observer, a read, ``goOnline()``)
/// starts it with the settings of that moment.
///
/// ## Invalid input
///
/// Nothing in this API crashes on bad input. Every key, path, value, priority and query is
/// validated before anything is queued, and a failure is a ``DatabaseError`` with code
/// `DatabaseError.Code.invalidArgument` whose message names the offending key or path.
/// It is reported by the call's own channel: thrown by the `async` variant, passed to the
/// completion block, or to the observer's cancel block. Builders that cannot report
/// (``DatabaseReference/child(_:)``, `queryOrdered…`, `queryStarting…`) return a reference or
/// query that carries the error in ``DatabaseQuery/validationError``; every operation on it
/// reports that error. Fire-and-forget calls without any channel drop the operation and
/// write the error to standard error (always, not only with ``setLoggingEnabled(_:)``).
public final class Database: Sendable {
    /// The Codable encoder used by ``DatabaseReference/setValue(from:encoder:completion:)``.
    public typealias Encoder = DatabaseEncoder
    /// The Codable decoder used by ``DataSnapshot/data(as:decoder:)``.
    public typealias Decoder = DatabaseDecoder

    /// The settings a database starts its engine with.
    private struct Settings {
        var location: Result<DatabaseURL, DatabaseError>
        var isPersistenceEnabled = false
        var persistenceCacheSizeBytes: UInt = 10 * 1024 * 1024
        var getOfflineTimeout: Duration = .seconds(3)
        var mailbox: EngineMailbox?
    }

    /// The URL the database was created with.
    let urlText: String
    private let transportFactory: any ClientTransportFactory
    private let settings: Mutex<Settings>
    private let executor: CallbackQueueExecutor
    /// Makes the keys of ``DatabaseReference/childByAutoId()``.
    private let pushIDs = Mutex(PushIDGenerator(clock: SyncEngine.Configuration.systemClock))

    // MARK: - Instances

    private static let instances = Mutex<[String: Database]>([:])
    private static let live = Mutex<[WeakDatabase]>([])
    private static let logging = Atomic<Bool>(false)

    /// The URL ``database()`` connects to: `CANOPY_DATABASE_URL` from the environment, else
    /// `http://127.0.0.1:9000` (where `canopy serve` listens by default).
    public static var defaultURL: String {
        ProcessInfo.processInfo.environment["CANOPY_DATABASE_URL"] ?? "http://127.0.0.1:9000"
    }

    /// The shared instance for ``defaultURL``.
    public static func database() -> Database {
        database(url: defaultURL)
    }

    /// The shared instance for `url` (`https://<ns>.firebaseio.com`,
    /// `http://127.0.0.1:9000?ns=<ns>`, `ws://…`, `wss://…`), connecting over websockets.
    ///
    /// The same URL always gives the same instance. An invalid URL does not crash: the
    /// database's references carry the error (see ``DatabaseQuery/validationError``).
    public static func database(url: String) -> Database {
        let key: String
        switch Result(catching: { () throws(DatabaseError) in try DatabaseURL(parsing: url) }) {
        case .success(let parsed): key = parsed.identity
        case .failure: key = url
        }
        return instances.withLock { instances in
            if let existing = instances[key] { return existing }
            let database = Database(url: url, transportFactory: WebSocketClientTransportFactory())
            instances[key] = database
            return database
        }
    }

    /// Creates an independent client for the database at `url` that connects through
    /// `transportFactory` — the Canopy way to compose a client with any transport, for
    /// example a `LoopbackNetwork` serving an in-process `CanopyServer` (use
    /// `loopback://<listener name>` as the URL).
    ///
    /// Instances made this way are not shared: each is its own client with its own
    /// connection, cache and callbacks.
    public init(url: String, transportFactory: any ClientTransportFactory) {
        self.urlText = url
        self.transportFactory = transportFactory
        self.settings = Mutex(Settings(location: Result { () throws(DatabaseError) in try DatabaseURL(parsing: url) }))
        self.executor = CallbackQueueExecutor(queue: DispatchQueue(label: "canopy.database.callbacks"))
        Database.live.withLock { live in
            live.removeAll { $0.database == nil }
            live.append(WeakDatabase(database: self))
        }
    }

    /// Every instance still alive (shared or independent).
    static var liveInstances: [Database] {
        live.withLock { $0.compactMap(\.database) }
    }

    /// Whether diagnostic messages of the engine (listen warnings, server errors) are
    /// printed. Warnings about dropped invalid input are printed either way.
    public static func setLoggingEnabled(_ enabled: Bool) {
        logging.store(enabled, ordering: .relaxed)
    }

    /// The library version.
    public static func sdkVersion() -> String { "0.1.0" }

    /// Writes `message` to standard error, whether or not logging is enabled: for input that
    /// was dropped because the call had no completion or cancel block to report it to, and
    /// for settings ignored because they came too late.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data(("[Canopy] warning: " + message + "\n").utf8))
    }

    /// Writes `message` to standard error when logging is enabled.
    static func log(_ message: @autoclosure () -> String) {
        guard logging.load(ordering: .relaxed) else { return }
        FileHandle.standardError.write(Data(("[Canopy] " + message() + "\n").utf8))
    }

    // MARK: - Configuration

    /// The queue on which observer blocks and completion blocks run; by default a serial
    /// queue of this database (not the main queue: set `.main` for UI code).
    ///
    /// Callbacks run in the order the engine raised them as long as the queue is serial. The
    /// queue may be changed at any time; callbacks raised afterwards go to the new queue.
    public var callbackQueue: DispatchQueue {
        get { executor.current }
        set { executor.current = newValue }
    }

    /// Whether the client keeps its cache and pending writes on disk across launches.
    ///
    /// Current behaviour: recorded, but the client keeps everything in memory — nothing
    /// survives a restart yet. Disk persistence takes effect when the persistence work of
    /// the engine lands. Like FirebaseDatabase, only a value set before first use counts;
    /// later changes are ignored (with a warning on standard error).
    public var isPersistenceEnabled: Bool {
        get { settings.withLock { $0.isPersistenceEnabled } }
        set {
            settings.withLock { settings in
                guard settings.mailbox == nil else {
                    Database.warn("isPersistenceEnabled changed after first use; ignored")
                    return
                }
                settings.isPersistenceEnabled = newValue
            }
        }
    }

    /// The size of the on-disk cache, in bytes: 1 MiB to 100 MiB, 10 MiB by default.
    ///
    /// Current behaviour: recorded (clamped to the allowed range) but unused, as there is no
    /// disk cache yet (see ``isPersistenceEnabled``). Only a value set before first use
    /// counts.
    public var persistenceCacheSizeBytes: UInt {
        get { settings.withLock { $0.persistenceCacheSizeBytes } }
        set {
            settings.withLock { settings in
                guard settings.mailbox == nil else {
                    Database.warn("persistenceCacheSizeBytes changed after first use; ignored")
                    return
                }
                settings.persistenceCacheSizeBytes = min(max(newValue, 1024 * 1024), 100 * 1024 * 1024)
            }
        }
    }

    /// Connects to a local server (`canopy serve`, the Firebase emulator) at `host:port`
    /// over plain HTTP/websockets instead of the URL's host, keeping the namespace.
    ///
    /// Must be called before first use; later calls are ignored (with a warning on standard
    /// error).
    public func useEmulator(withHost host: String, port: Int) {
        settings.withLock { settings in
            guard settings.mailbox == nil else {
                Database.warn("useEmulator(withHost:port:) called after first use; ignored")
                return
            }
            if case .success(let location) = settings.location {
                settings.location = .success(location.redirected(toHost: host, port: port))
            }
        }
    }

    /// Connects to a local server at `host:port`; the same as
    /// ``useEmulator(withHost:port:)`` (Firebase's spelling), under the name the Canopy
    /// documentation uses.
    ///
    /// Must be called before first use; later calls are ignored (with a warning on standard
    /// error).
    public func useEmulator(host: String, port: Int) {
        useEmulator(withHost: host, port: port)
    }

    /// How long ``DatabaseQuery/getData(completion:)`` waits for a connection before
    /// answering from the cache or failing (3 s, as FirebaseDatabase). Like the other
    /// settings it must be set before first use; later changes are ignored.
    var getOfflineTimeout: Duration {
        get { settings.withLock { $0.getOfflineTimeout } }
        set {
            settings.withLock { settings in
                guard settings.mailbox == nil else { return }
                settings.getOfflineTimeout = newValue
            }
        }
    }

    // MARK: - References

    /// The parsed URL, or why it could not be parsed.
    var location: Result<DatabaseURL, DatabaseError> { settings.withLock { $0.location } }

    /// A reference to the root of the database.
    public func reference() -> DatabaseReference {
        switch location {
        case .success: return DatabaseReference(database: self, path: .root)
        case .failure(let error): return DatabaseReference(database: self, path: .root, error: error)
        }
    }

    /// A reference to `path` (`"users/alice"`; leading, trailing and double slashes are
    /// ignored). An invalid path gives a reference carrying the error.
    public func reference(withPath path: String) -> DatabaseReference {
        reference().child(path)
    }

    /// A reference to the location a full URL names (`https://<ns>.firebaseio.com/users`).
    /// The URL must name this database; otherwise the reference carries the error.
    public func reference(fromURL url: String) -> DatabaseReference {
        do {
            let parsed = try DatabaseURL(parsing: url)
            guard case .success(let mine) = location, parsed.host == mine.host,
                parsed.namespace == mine.namespace || parsed.namespace == nil
            else {
                throw DatabaseError.invalidArgument(
                    "The URL \"\(url)\" names another database than \(urlText)")
            }
            return DatabaseReference(database: self, path: parsed.path)
        } catch {
            return DatabaseReference(database: self, path: .root, error: DatabaseError(validating: error))
        }
    }

    // MARK: - Connection

    /// Reconnects after ``goOffline()``: queued writes, listens and reads are sent again.
    public func goOnline() {
        post { await $0.goOnline() }
    }

    /// Disconnects from the server until ``goOnline()``. Observers keep working on cached
    /// data and writes are applied locally and queued. The server runs this client's
    /// onDisconnect operations, and the client shows their effect locally.
    public func goOffline() {
        post { await $0.goOffline() }
    }

    /// Drops every write not yet acknowledged by the server: reverts them locally, fails
    /// their completions and pending transactions with `DatabaseError.Code.writeCanceled`,
    /// and cancels queued onDisconnect operations.
    public func purgeOutstandingWrites() {
        post { await $0.purgeOutstandingWrites() }
    }

    /// A new push id for ``DatabaseReference/childByAutoId()``, stamped with the estimated
    /// server time once the engine runs (the local clock before).
    func nextPushID() -> String {
        let clock = settings.withLock { $0.mailbox?.engine.serverClock }
        return pushIDs.withLock { generator in
            if let clock { return generator.next(timestamp: clock.now()) }
            return generator.next()
        }
    }

    // MARK: - Pending writes

    /// The number of writes (`setValue`, `updateChildValues`, `setPriority`, `removeValue`)
    /// made so far that the server has not yet acknowledged or refused.
    public var pendingWriteCount: Int {
        get async {
            await withCheckedContinuation { continuation in
                post { continuation.resume(returning: await $0.pendingWriteCount) }
            }
        }
    }

    /// The state changes of writes made after this call: each write as
    /// ``DatabaseWriteStatus/State/pending``, then acknowledged or failed. The sequence ends
    /// when the consuming task stops iterating or is cancelled.
    public func writeStatuses() -> AsyncStream<DatabaseWriteStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: DatabaseWriteStatus.self)
        let forwarding = ForwardingTask()
        continuation.onTermination = { _ in forwarding.cancel() }
        post { engine in
            let statuses = await engine.writeStatuses()
            forwarding.start {
                for await status in statuses {
                    continuation.yield(DatabaseWriteStatus(status, database: self))
                }
                continuation.finish()
            }
        }
        return stream
    }

    /// Returns once every write made before this call has been acknowledged or has failed
    /// (at once when none is pending).
    public func waitForPendingWrites() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            post { engine in
                guard await engine.pendingWriteCount > 0 else {
                    continuation.resume()
                    return
                }
                Task {
                    await engine.waitForPendingWrites()
                    continuation.resume()
                }
            }
        }
    }

    // MARK: - Engine

    /// Runs `call` against the engine after every call posted before it; starts the engine
    /// on first use.
    func post(_ call: @escaping EngineMailbox.Call) {
        mailbox().post(call)
    }

    /// Runs an engine write after every call posted before it; a validation error the
    /// engine throws goes to `completion` on the callback queue.
    func post(_ completion: @escaping WriteCompletion, _ call: @escaping @Sendable (SyncEngine) async throws -> Void) {
        let executor = self.executor
        post { engine in
            do {
                try await call(engine)
            } catch {
                let failure = DatabaseError(validating: error)
                executor.enqueue { completion(failure) }
            }
        }
    }

    /// The engine (started on first use).
    var engine: SyncEngine { mailbox().engine }

    private func mailbox() -> EngineMailbox {
        settings.withLock { settings in
            if let mailbox = settings.mailbox { return mailbox }
            let target: ConnectionTarget
            switch settings.location {
            case .success(let location): target = location.target
            case .failure: target = ConnectionTarget(host: "invalid.invalid")
            }
            var configuration = SyncEngine.Configuration(
                target: target, transportFactory: transportFactory, callbackExecutor: executor)
            configuration.startsOnline = settings.location.isSuccess
            configuration.getOfflineTimeout = settings.getOfflineTimeout
            configuration.log = { Database.log($0) }
            let mailbox = EngineMailbox(engine: SyncEngine(configuration: configuration))
            settings.mailbox = mailbox
            return mailbox
        }
    }

    /// Runs `work` on the callback queue after the callbacks of every call posted before
    /// (for answers the API gives itself, such as validation errors).
    func deliver(_ work: @escaping @Sendable () -> Void) {
        let executor = self.executor
        post { _ in executor.enqueue(work) }
    }
}

extension Result {
    /// Whether this is a success.
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
