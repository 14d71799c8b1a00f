/// The timers a ``ClientConnectionStateMachine`` asks its driver to run.
///
/// Scheduling a timer replaces any pending timer of the same kind.
public enum ClientConnectionTimer: Sendable, Hashable {
    /// Fires when the hello has not arrived in time after the transport opened.
    case handshake
    /// Fires when a keepalive may be due.
    case keepalive
}
