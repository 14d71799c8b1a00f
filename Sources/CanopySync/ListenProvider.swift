/// How a listen ended, as reported to the completion a sync tree hands its provider.
public enum ListenStatus: Sendable, Equatable {
    /// The server sent the initial data (`ok`).
    case ok
    /// The listen failed (for example permission denied); the reason is the server's status.
    case failed(reason: String)
}

/// What a sync tree asks of the outside world to keep the minimal set of listens on the
/// wire (client-design.md §2.3, §6.7).
public protocol ListenProvider: AnyObject {
    /// Starts listening for `query` (tagged when `tag` is non-`nil`). `hash` gives the hash
    /// of the view's current server cache; `onComplete` must be called once the listen
    /// completes and returns the events that produced. Returns events raised at once.
    func startListening(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String,
        onComplete: @escaping (ListenStatus) -> [Event]
    ) -> [Event]

    /// Stops listening for `query` (with the tag it was started with).
    func stopListening(_ query: QuerySpec, tag: Int?)
}
