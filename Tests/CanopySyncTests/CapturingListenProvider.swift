import CanopySync
import CanopyTree

/// A listen provider that keeps every started listen with its callbacks, so tests can
/// complete or fail them and inspect what is on the wire.
final class CapturingListenProvider: ListenProvider {
    struct Listen {
        let query: QuerySpec
        let tag: Int?
        let hash: () -> String
        let onComplete: (ListenStatus) -> [Event]
    }

    private(set) var active: [Listen] = []
    private(set) var stopped: [(query: QuerySpec, tag: Int?)] = []

    func startListening(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [Event]
    ) -> [Event] {
        active.append(Listen(query: query, tag: tag, hash: hash, onComplete: onComplete))
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {
        active.removeAll { $0.query == query && $0.tag == tag }
        stopped.append((query, tag))
    }

    /// The active listen for `query`, if any.
    func listen(for query: QuerySpec) -> Listen? { active.first { $0.query == query } }

    /// The active listens as "path identifier tag" strings, sorted.
    var activeDescriptions: [String] {
        active.map { "\($0.query.path.wireString) \($0.query.params.identifier) \($0.tag.map(String.init) ?? "-")" }
            .sorted()
    }
}
