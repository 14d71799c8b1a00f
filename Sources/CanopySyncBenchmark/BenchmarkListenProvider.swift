import CanopySync

/// A listen provider standing in for the connection: it keeps each listen's completion so
/// the benchmark can complete the listen as the server would.
final class BenchmarkListenProvider: ListenProvider {
    /// The completions of the listens started, oldest first.
    private(set) var completions: [(ListenStatus) -> [Event]] = []
    /// How many listens were started.
    var started: Int { completions.count }

    func startListening(
        _ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [Event]
    ) -> [Event] {
        completions.append(onComplete)
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {}
}

/// A registration wanting a fixed set of event types.
final class BenchmarkRegistration: EventRegistration {
    let types: Set<EventType>

    init(_ types: Set<EventType>) { self.types = types }

    func responds(to type: EventType) -> Bool { types.contains(type) }

    var receivesCancel: Bool { false }
}
