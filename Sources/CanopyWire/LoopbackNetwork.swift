import Synchronization

/// An in-process network of named loopback listeners, for tests and single-process apps.
///
/// A server listens under a name (``listen(on:)``); a client transport made by this network
/// (``makeTransport()``) connects to the listener whose name is the target's
/// ``ConnectionTarget/host``. Frames travel as the same text frames a websocket would carry,
/// in order, both ways; closing either end notifies the other. Delivery is deterministic:
/// no sockets, no threads of its own.
///
/// With ``maxFrameSize`` set, a frame longer than that many UTF-16 code units fails the
/// connection, like a websocket with a message size limit — so tests can check that senders
/// really split large messages.
public final class LoopbackNetwork: ClientTransportFactory, Sendable {
    /// The largest frame carried, in UTF-16 code units; `nil` for no limit.
    public let maxFrameSize: Int?
    private let listeners = Mutex<[String: LoopbackListener]>([:])

    /// Creates an empty network.
    public init(maxFrameSize: Int? = nil) {
        self.maxFrameSize = maxFrameSize
    }

    /// Starts listening under `name`. Throws when a listener already uses the name.
    public func listen(on name: String) throws(LoopbackError) -> LoopbackListener {
        let listener = LoopbackListener(name: name, network: self)
        let added = listeners.withLock { listeners in
            guard listeners[name] == nil else { return false }
            listeners[name] = listener
            return true
        }
        guard added else { throw LoopbackError("a loopback listener named \"\(name)\" already exists") }
        return listener
    }

    /// A new client transport on this network.
    public func makeTransport() -> any ClientTransport {
        LoopbackClientTransport(network: self)
    }

    /// Connects a client to the listener named by `target`: reports `opened` to the client,
    /// then hands the listener the server end. Returns `nil` when nobody listens there.
    func connect(_ target: ConnectionTarget, client: AsyncStream<ClientTransportEvent>.Continuation) -> LoopbackLink? {
        listeners.withLock { listeners in
            guard let listener = listeners[target.host] else { return nil }
            let (events, server) = AsyncStream.makeStream(of: ServerConnectionEvent.self)
            let link = LoopbackLink(client: client, server: server, maxFrameSize: maxFrameSize)
            let connection = LoopbackServerConnection(
                request: ConnectionRequest(target: target), events: events, link: link)
            // The client hears "opened" before the server can send anything.
            client.yield(.opened)
            listener.accept(connection)
            return link
        }
    }

    func remove(_ listener: LoopbackListener) {
        listeners.withLock { listeners in
            if listeners[listener.name] === listener { listeners[listener.name] = nil }
        }
    }
}
