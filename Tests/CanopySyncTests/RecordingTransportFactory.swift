import CanopyWire
import Synchronization

/// Makes loopback transports that record the requests the client sends and can be dropped
/// from the test (as if the network failed).
final class RecordingTransportFactory: ClientTransportFactory {
    let network: LoopbackNetwork
    private let transports = Mutex<[RecordingTransport]>([])
    /// Every request sent, in order, across connections.
    let requests = TestRecorder<ClientRequest>()

    init(network: LoopbackNetwork) {
        self.network = network
    }

    func makeTransport() -> any ClientTransport {
        let transport = RecordingTransport(inner: network.makeTransport(), requests: requests)
        transports.withLock { $0.append(transport) }
        return transport
    }

    /// Closes every transport made so far.
    func dropConnections() async {
        for transport in transports.withLock({ $0 }) { await transport.close() }
    }

    /// The number of transports made (connection attempts).
    var attempts: Int { transports.withLock { $0.count } }
}

/// A transport that records decoded outgoing requests.
final class RecordingTransport: ClientTransport {
    private let inner: any ClientTransport
    private let requests: TestRecorder<ClientRequest>

    init(inner: any ClientTransport, requests: TestRecorder<ClientRequest>) {
        self.inner = inner
        self.requests = requests
    }

    var events: AsyncStream<ClientTransportEvent> { inner.events }

    func connect(to target: ConnectionTarget) async { await inner.connect(to: target) }

    func send(_ frame: String) async {
        if case .request(_, let request)? = try? WireMessage(text: frame) { requests.append(request) }
        await inner.send(frame)
    }

    func close() async { await inner.close() }
}
