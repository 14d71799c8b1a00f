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

    func send(_ frame: String) async { link.deliver(frame, from: .server) }
    func sendPing() async { link.ping() }
    func close() async { link.close(from: .server) }
}
