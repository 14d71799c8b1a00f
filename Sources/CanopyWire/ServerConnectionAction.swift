/// What a ``ServerConnectionStateMachine`` asks its driver to do, in order.
public enum ServerConnectionAction: Sendable, Equatable {
    /// Send these text frames on the transport, in order.
    case sendFrames([String])
    /// Hand a request to the namespace engine, which answers it with exactly one response.
    case deliverRequest(number: Int64, ClientRequest)
    /// Answer request `number` with this error response without processing it (an unknown
    /// action, or a body that does not decode). Send it through the same ordered path as the
    /// engine's responses so requests stay answered in arrival order.
    case rejectRequest(number: Int64, ServerResponse)
    /// A frame or message that cannot be answered (not JSON, no request number, a message
    /// only servers send) was dropped; the connection stays open. For logging.
    case ignoredMessage(WireError)
    /// Send a transport-level ping (an RFC 6455 ping frame) to probe the connection.
    case sendTransportPing
    /// Run `timer` at `deadline`, replacing any pending timer of that kind, and report it
    /// with ``ServerConnectionStateMachine/timerFired(_:at:)``.
    case scheduleTimer(ServerConnectionTimer, at: ContinuousClock.Instant)
    /// Close the transport.
    case closeTransport
    /// The connection is over (exactly once per state machine): run its onDisconnect
    /// operations and forget its listens; cancel its timers.
    case connectionEnded(ServerDisconnectReason)
}
