import CanopyStorage
import CanopyTree
import CanopyWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A server: the namespaces it holds, by name, and the connections it serves from any
/// number of `ServerListener`s (loopback, websockets, …).
///
/// Any namespace name is accepted; the first connection (or call) that names one opens it on
/// a store made by the store factory. A connection's namespace is its `ns` parameter, else
/// the first label of a `Host` with three or more labels, else the default namespace
/// (protocol.md §2.1).
public actor CanopyServer {
    /// Server-wide settings.
    public struct Configuration: Sendable {
        /// The namespace of connections that name none.
        public var defaultNamespace: String
        /// Frame limits, probe interval and idle timeout of every connection.
        public var connection: ServerConnectionStateMachine.Configuration
        /// Who may read and write what, in every namespace.
        public var policy: any AccessPolicy
        /// The server time in milliseconds since the Unix epoch.
        public var clock: @Sendable () -> Int64
        /// Receives diagnostic lines (connections opening and ending, refusals, failures);
        /// `nil` for none.
        public var log: (@Sendable (String) -> Void)?

        /// Creates a configuration; by default an open policy, the system clock, and the
        /// wire defaults (16384-character frames, 120 s idle timeout).
        public init(
            defaultNamespace: String = "default",
            connection: ServerConnectionStateMachine.Configuration = .init(),
            policy: any AccessPolicy = OpenAccessPolicy(),
            clock: @escaping @Sendable () -> Int64 = CanopyServer.systemClock,
            log: (@Sendable (String) -> Void)? = nil
        ) {
            self.defaultNamespace = defaultNamespace
            self.connection = connection
            self.policy = policy
            self.clock = clock
            self.log = log
        }
    }

    /// The system time in milliseconds since the Unix epoch.
    public static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The settings.
    public let configuration: Configuration
    private let makeStore: @Sendable (String) throws -> any TreeStore
    private var namespaces: [String: ServerNamespace] = [:]
    private var handlers: [ServerSessionID: ServerConnectionHandler] = [:]
    private var isShutDown = false

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - configuration: Server-wide settings.
    ///   - makeStore: Opens the store of a namespace, given its name; called once per
    ///     namespace.
    public init(
        configuration: Configuration = Configuration(),
        makeStore: @escaping @Sendable (String) throws -> any TreeStore
    ) {
        self.configuration = configuration
        self.makeStore = makeStore
    }

    /// The namespace named `name`, opened on first use (the name is not checked here; see
    /// ``isValidNamespaceName(_:)``).
    ///
    /// - Throws: The store factory's or the store's error when it cannot be opened.
    public func namespace(named name: String) throws -> ServerNamespace {
        if let existing = namespaces[name] { return existing }
        let namespace = try ServerNamespace(
            name: name, store: try makeStore(name), policy: configuration.policy, clock: configuration.clock)
        namespaces[name] = namespace
        return namespace
    }

    /// The name of the namespace a connection asks for.
    public nonisolated func namespaceName(for request: ConnectionRequest) -> String {
        if let ns = request.namespace, !ns.isEmpty { return ns }
        let host = request.host.split(separator: ":").first.map(String.init) ?? ""
        let labels = host.split(separator: ".")
        let isAddress = labels.allSatisfy { $0.allSatisfy(\.isNumber) }
        if labels.count >= 3, !isAddress { return String(labels[0]) }
        return configuration.defaultNamespace
    }

    /// Serves every connection `listener` accepts until it stops accepting. Each
    /// connection runs concurrently with the others.
    public func serve(_ listener: some ServerListener) async {
        await withDiscardingTaskGroup { group in
            for await connection in listener.connections {
                group.addTask { await self.serve(connection) }
            }
        }
    }

    /// Serves one connection until it ends.
    ///
    /// A connection the server can never serve — an unsupported protocol version `v`, an
    /// invalid namespace name, a namespace whose store cannot be opened — gets a shutdown
    /// message naming the problem (the client stops reconnecting) and is closed. After
    /// ``shutdown()`` new connections are closed without a message, so clients retry later.
    public func serve(_ connection: any ServerConnection) async {
        guard !isShutDown else {
            connection.close()
            return
        }
        if let version = connection.request.protocolVersion, version != WireProtocol.version {
            refuse(connection, "Unsupported protocol version \(version); this server speaks version 5")
            return
        }
        let name = namespaceName(for: connection.request)
        guard Self.isValidNamespaceName(name) else {
            refuse(connection, "Invalid namespace name \"\(name)\"")
            return
        }
        let namespace: ServerNamespace
        do {
            namespace = try self.namespace(named: name)
        } catch {
            refuse(connection, "Namespace \"\(name)\" is unavailable: \(error)")
            return
        }
        if let previous = connection.request.lastSessionID, let stale = handlers[ServerSessionID(previous)] {
            await stale.close()
        }
        let handler = ServerConnectionHandler(
            connection: connection, namespace: namespace, configuration: configuration.connection,
            clock: configuration.clock, log: configuration.log)
        handlers[handler.session] = handler
        await handler.run()
        handlers[handler.session] = nil
    }

    /// Closes every connection (their onDisconnect operations run), then closes every
    /// namespace's store. Later connections are closed at once.
    public func shutdown() async {
        isShutDown = true
        for handler in handlers.values { await handler.close() }
        for namespace in namespaces.values { await namespace.closeStore() }
    }

    /// Whether `name` can name a namespace: 1 to 63 ASCII letters, digits, `-` or `_` (it
    /// may become a file name in a store factory, so nothing else is accepted).
    public static func isValidNamespaceName(_ name: String) -> Bool {
        let bytes = name.utf8
        return (1...63).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
    }

    /// Sends a shutdown message (a permanent refusal) and closes the connection.
    private func refuse(_ connection: any ServerConnection, _ reason: String) {
        configuration.log?("refused a connection from \(connection.request.remoteAddress ?? "unknown"): \(reason)")
        connection.send(frames: FrameSplitter().frames(for: .control(.shutdown(reason: reason))))
        connection.close()
    }

    /// The number of connections being served.
    public var connectionCount: Int { handlers.count }
}
