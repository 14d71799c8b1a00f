import Synchronization

/// The client end of a loopback connection: a ``ClientTransport`` that connects to a
/// ``LoopbackListener`` on a ``LoopbackNetwork`` by name (the target's host).
public final class LoopbackClientTransport: ClientTransport {
    private enum State: Sendable {
        case idle
        case open(LoopbackLink)
        case closed
    }

    /// The transport's events.
    public let events: AsyncStream<ClientTransportEvent>
    private let continuation: AsyncStream<ClientTransportEvent>.Continuation
    private let network: LoopbackNetwork
    private let state = Mutex<State>(.idle)

    /// Creates an unconnected transport on `network`.
    public init(network: LoopbackNetwork) {
        self.network = network
        (events, continuation) = AsyncStream.makeStream(of: ClientTransportEvent.self)
    }

    /// Connects to the listener named `target.host`; reports `closed(.failed)` when there is none.
    public func connect(to target: ConnectionTarget) async {
        state.withLock { state in
            guard case .idle = state else { return }
            if let link = network.connect(target, client: continuation) {
                state = .open(link)
            } else {
                state = .closed
                continuation.yield(.closed(.failed("no loopback listener named \"\(target.host)\"")))
                continuation.finish()
            }
        }
    }

    /// Sends a frame to the server end.
    public func send(_ frame: String) async {
        if case .open(let link) = state.withLock({ $0 }) { link.deliver(frame, from: .client) }
    }

    /// Closes the connection (or gives up before connecting).
    public func close() async {
        let link: LoopbackLink? = state.withLock { state in
            switch state {
            case .idle:
                state = .closed
                continuation.yield(.closed(.closedLocally))
                continuation.finish()
                return nil
            case .open(let link):
                return link
            case .closed:
                return nil
            }
        }
        link?.close(from: .client)
    }
}
