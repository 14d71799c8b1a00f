import CanopyWire

/// The server sync tree's ``ListenProvider``: puts listens on the wire through the
/// ``PersistentConnection`` and turns their responses into listen completions
/// (client-design.md §6.7).
///
/// A response's events are handed to ``raise``; a failed listen is also reported to
/// ``listenFailed`` so the engine can forget pins and observers of that query.
final class ServerListenProvider: ListenProvider {
    private let connection: PersistentConnection
    /// Receives the events a listen's completion produced.
    var raise: ([Event]) -> Void = { _ in }
    /// Told about a listen the server refused or revoked, with the removal that raises its
    /// cancel events (to be called once).
    var listenFailed: (QuerySpec, DatabaseError, () -> [Event]) -> Void = { _, _, _ in }
    /// While set, listens are neither started nor stopped (a one-shot read's temporary view).
    var isSuppressed = false

    init(connection: PersistentConnection) {
        self.connection = connection
    }

    func startListening(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String,
        onComplete: @escaping (ListenStatus) -> [Event]
    ) -> [Event] {
        guard !isSuppressed else { return [] }
        connection.listen(query, tag: tag, hash: hash) { [weak self] response in
            guard let self else { return }
            if response.status.isOK {
                self.raise(onComplete(.ok))
            } else {
                self.listenFailed(query, DatabaseError(status: response.status, reason: response.reason)) {
                    onComplete(.failed(reason: response.status.rawValue))
                }
            }
        }
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {
        guard !isSuppressed else { return }
        connection.unlisten(query, tag: tag)
    }
}
