import Synchronization

/// The in-process wire between one loopback client transport and its server connection.
///
/// Frames are yielded into the receiving side's event stream under a lock, so frames sent
/// from either side arrive in exactly the order they were sent. Closing from either side
/// delivers one `closed` event to each side and finishes both streams.
final class LoopbackLink: Sendable {
    enum Side: Sendable { case client, server }

    private let client: AsyncStream<ClientTransportEvent>.Continuation
    private let server: AsyncStream<ServerConnectionEvent>.Continuation
    private let maxFrameSize: Int?
    private let closed = Mutex(false)

    init(
        client: AsyncStream<ClientTransportEvent>.Continuation, server: AsyncStream<ServerConnectionEvent>.Continuation,
        maxFrameSize: Int?
    ) {
        self.client = client
        self.server = server
        self.maxFrameSize = maxFrameSize
    }

    var isClosed: Bool { closed.withLock { $0 } }

    /// Carries `frame` to the other side; a frame over the size limit fails the link.
    func deliver(_ frame: String, from side: Side) {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            if let maxFrameSize, frame.utf16.count > maxFrameSize {
                let reason = TransportCloseReason.failed(
                    "frame of \(frame.utf16.count) UTF-16 code units exceeds the loopback limit of \(maxFrameSize)")
                finish(&isClosed, client: reason, server: reason)
                return
            }
            switch side {
            case .client: server.yield(.frame(frame))
            case .server: client.yield(.frame(frame))
            }
        }
    }

    /// A transport ping from the server: the loopback client answers at once.
    func ping() {
        closed.withLock { isClosed in
            if !isClosed { server.yield(.pong) }
        }
    }

    /// Ends the link; `side` closed it.
    func close(from side: Side) {
        closed.withLock { isClosed in
            switch side {
            case .client: finish(&isClosed, client: .closedLocally, server: .closedByPeer)
            case .server: finish(&isClosed, client: .closedByPeer, server: .closedLocally)
            }
        }
    }

    private func finish(
        _ isClosed: inout Bool, client clientReason: TransportCloseReason, server serverReason: TransportCloseReason
    ) {
        guard !isClosed else { return }
        isClosed = true
        client.yield(.closed(clientReason))
        client.finish()
        server.yield(.closed(serverReason))
        server.finish()
    }
}
