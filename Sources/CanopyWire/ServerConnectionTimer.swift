/// The timers a ``ServerConnectionStateMachine`` asks its driver to run.
///
/// Scheduling a timer replaces any pending timer of the same kind.
public enum ServerConnectionTimer: Sendable, Hashable {
    /// Fires when a transport-level ping probe may be due.
    case probe
    /// Fires when the connection may have been silent for the idle timeout.
    case idle
}
