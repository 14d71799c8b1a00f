import CanopySync
import CanopyTree

/// Records the listens a sync tree asks for; starting an active listen or stopping an
/// unknown one is a failure (client-design.md §14.2).
final class RecordingListenProvider: ListenProvider {
    private(set) var active: Set<String> = []
    private(set) var failures: [String] = []

    private func key(_ query: QuerySpec, _ tag: Int?) -> String {
        "\(query.path.wireString) \(query.params.identifier) tag=\(tag.map(String.init) ?? "none")"
    }

    func startListening(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [Event]
    ) -> [Event] {
        let key = key(query, tag)
        if !active.insert(key).inserted { failures.append("listen started twice: \(key)") }
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {
        let key = key(query, tag)
        if active.remove(key) == nil { failures.append("stopped a listen that was not active: \(key)") }
    }

    /// Returns and clears the failures recorded so far.
    func takeFailures() -> [String] {
        defer { failures = [] }
        return failures
    }
}
