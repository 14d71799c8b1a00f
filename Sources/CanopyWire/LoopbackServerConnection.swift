/// The server end of a loopback connection.
final class LoopbackServerConnection: ServerConnection {
    let request: ConnectionRequest
    let events: AsyncStream<ServerConnectionEvent>
    private let link: LoopbackLink

    init(request: ConnectionRequest, events: AsyncStream<ServerConnectionEvent>, link: LoopbackLink) {
        self.request = request
        self.events = events
        self.link = link
    }

    func send(_ frame: String) { link.deliver(frame, from: .server) }
    func sendPing() { link.ping() }
    func close() { link.close(from: .server) }
}
