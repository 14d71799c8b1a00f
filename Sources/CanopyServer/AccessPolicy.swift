import CanopyTree

/// Decides which reads and writes a connection may perform: the one place security rules
/// slot into the server engine.
///
/// The engine asks the policy before registering a listen, answering a get, committing a
/// write (once per merge key) and queueing an onDisconnect operation (at registration, not
/// when it runs — protocol.md §10). ``OpenAccessPolicy`` allows everything; a rules-based
/// policy evaluates `CanopyRules` here.
public protocol AccessPolicy: Sendable {
    /// Whether a listen or get described by `read` is allowed.
    func allowsRead(_ read: ReadAccess) -> Bool
    /// Whether a write described by `write` is allowed.
    func allowsWrite(_ write: WriteAccess) -> Bool
    /// Warnings for the `w` field of a listen's `ok` response (e.g. `no_index` when the
    /// query orders by a child that has no index).
    func listenWarnings(_ read: ReadAccess) -> [String]
}
