import CanopyWire
import Synchronization

/// Makes loopback transports that record the requests the client sends, can swallow some
/// of them, and can be dropped from the test (as if the network failed).
final class RecordingTransportFactory: ClientTransportFactory {
    let network: LoopbackNetwork
    private let transports = Mutex<[RecordingTransport]>([])
    private let swallowed = Mutex<@Sendable (ClientRequest) -> Bool>({ _ in false })
    /// Every request sent, in order, across connections.
    let requests = TestRecorder<ClientRequest>()

    init(network: LoopbackNetwork) {
        self.network = network
    }

    func makeTransport() -> any ClientTransport {
        let transport = RecordingTransport(inner: network.makeTransport(), factory: self)
        transports.withLock { $0.append(transport) }
        return transport
    }

    /// From now on, requests matching `predicate` are recorded but never reach the server.
    func swallow(_ predicate: @escaping @Sendable (ClientRequest) -> Bool) {
        swallowed.withLock { $0 = predicate }
    }

    /// Records a request; whether to swallow it.
    func record(_ request: ClientRequest) -> Bool {
        requests.append(request)
        return swallowed.withLock { $0 }(request)
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
    private let factory: RecordingTransportFactory

    init(inner: any ClientTransport, factory: RecordingTransportFactory) {
        self.inner = inner
        self.factory = factory
    }

    var events: AsyncStream<ClientTransportEvent> { inner.events }

    func connect(to target: ConnectionTarget) async { await inner.connect(to: target) }

    func send(_ frame: String) async {
        if case .request(_, let request)? = try? WireMessage(text: frame), factory.record(request) { return }
        await inner.send(frame)
    }

    func close() async { await inner.close() }
}
