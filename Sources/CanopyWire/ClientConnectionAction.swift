/// What a ``ClientConnectionStateMachine`` asks its driver to do, in order.
public enum ClientConnectionAction: Sendable, Equatable {
    /// Send these text frames on the transport, in order.
    case sendFrames([String])
    /// The hello arrived: the client is connected. Set `.info/connected` to `true` and
    /// `.info/serverTimeOffset` to `timestamp − local clock`; remember `host` and `sessionID`.
    case handshakeCompleted(Handshake)
    /// Hand a response to the engine.
    case deliverResponse(number: Int64, ServerResponse)
    /// Hand a push to the engine.
    case deliverPush(ServerPush)
    /// The server sent an error control message; log it.
    case logServerError(String)
    /// Run `timer` at `deadline`, replacing any pending timer of that kind, and report it
    /// with ``ClientConnectionStateMachine/timerFired(_:at:)``.
    case scheduleTimer(ClientConnectionTimer, at: ContinuousClock.Instant)
    /// Close the transport.
    case closeTransport
    /// The connection is over (exactly once per state machine); cancel its timers.
    case connectionEnded(ClientDisconnectReason)
}
