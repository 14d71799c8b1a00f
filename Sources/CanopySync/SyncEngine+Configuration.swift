import CanopyTree
import CanopyWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SyncEngine {
    /// How an engine connects and where it delivers callbacks.
    public struct Configuration: Sendable {
        /// Where to connect (host, namespace, headers).
        public var target: ConnectionTarget
        /// Makes a transport for every connection attempt (websocket, loopback).
        public var transportFactory: any ClientTransportFactory
        /// Frame limits, keepalive and handshake timeout of each connection.
        public var connection: ClientConnectionStateMachine.Configuration
        /// Reconnect backoff.
        public var reconnect: ReconnectPolicy
        /// Where observer callbacks and completions run.
        public var callbackExecutor: any CallbackExecutor
        /// The credential sent after every hello, if any.
        public var credential: AuthCredential?
        /// The local wall clock in milliseconds since the Unix epoch.
        public var wallClock: @Sendable () -> Int64
        /// How long a one-shot read waits for a connection before failing (3 s).
        public var getOfflineTimeout: Duration
        /// Whether to connect as soon as the engine exists (else at ``SyncEngine/goOnline()``).
        public var startsOnline: Bool
        /// The usage counters sent as `s` on the first connection; `nil` sends none.
        public var statsCounters: JSONValue?
        /// Receives diagnostic lines (listen warnings, server errors, redirects).
        public var log: (@Sendable (String) -> Void)?
        /// Where unacknowledged writes are kept; writes found there at start-up are
        /// re-applied and re-sent.
        public var writeQueue: any WriteQueueStore

        /// Creates a configuration with the reference clients' timings.
        public init(
            target: ConnectionTarget, transportFactory: any ClientTransportFactory,
            connection: ClientConnectionStateMachine.Configuration = .init(),
            reconnect: ReconnectPolicy = ReconnectPolicy(),
            callbackExecutor: any CallbackExecutor = SerialCallbackExecutor(), credential: AuthCredential? = nil,
            wallClock: @escaping @Sendable () -> Int64 = Configuration.systemClock,
            getOfflineTimeout: Duration = .seconds(3), startsOnline: Bool = true,
            statsCounters: JSONValue? = .object([JSONMember("sdk.swift.canopy", .int(1))]),
            log: (@Sendable (String) -> Void)? = nil, writeQueue: any WriteQueueStore = MemoryWriteQueueStore()
        ) {
            self.target = target
            self.transportFactory = transportFactory
            self.connection = connection
            self.reconnect = reconnect
            self.callbackExecutor = callbackExecutor
            self.credential = credential
            self.wallClock = wallClock
            self.getOfflineTimeout = getOfflineTimeout
            self.startsOnline = startsOnline
            self.statsCounters = statsCounters
            self.log = log
            self.writeQueue = writeQueue
        }

        /// The system wall clock in milliseconds since the Unix epoch.
        public static let systemClock: @Sendable () -> Int64 = {
            Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        }
    }
}
