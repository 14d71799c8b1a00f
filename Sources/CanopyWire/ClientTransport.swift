/// One client-side connection attempt over some transport (a websocket, the loopback).
///
/// Usage: call ``connect(to:)`` once, consume ``events`` (``ClientTransportEvent/opened``,
/// then frames, then exactly one ``ClientTransportEvent/closed(_:)``, after which the stream
/// finishes), ``send(_:)`` text frames while open, ``close()`` to end it. A transport is not
/// reused: a reconnect asks a ``ClientTransportFactory`` for a new one.
public protocol ClientTransport: Sendable {
    /// The transport's events; single consumer.
    var events: AsyncStream<ClientTransportEvent> { get }
    /// Starts connecting. Failure is reported as a ``ClientTransportEvent/closed(_:)`` event.
    func connect(to target: ConnectionTarget) async
    /// Sends one text frame; frames arrive in the order sent. Ignored when not open.
    func send(_ frame: String) async
    /// Closes the connection; the peer is notified.
    func close() async
}

/// Makes a fresh ``ClientTransport`` for every connection attempt.
public protocol ClientTransportFactory: Sendable {
    /// A new, unconnected transport.
    func makeTransport() -> any ClientTransport
}
