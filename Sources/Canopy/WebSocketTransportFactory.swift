import CanopyWebSocket
import CanopyWire

/// Makes a libwebsockets client transport (`ws`/`wss`) for every connection attempt; the
/// transport ``Database/database(url:)`` uses.
struct WebSocketTransportFactory: ClientTransportFactory {
    /// TLS, timeouts and headers of every connection.
    let configuration: WebSocketClientConfiguration

    func makeTransport() -> any ClientTransport {
        WebSocketClientTransport(configuration: configuration)
    }
}
