import CanopyServer
import CanopyTree
import Synchronization

/// Collects the pushes a namespace sends to one test connection, as readable lines such as
/// `d rooms/r1 {"title":"hi"}` or `m a {"b":1} t2`.
final class PushLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// The sink to hand to `ServerNamespace.open(session:sink:)`.
    var sink: @Sendable (DataPush) -> Void {
        { push in
            let line = PushLog.describe(push)
            self.lines.withLock { $0.append(line) }
        }
    }

    /// Returns and forgets the pushes collected so far.
    func take() -> [String] {
        lines.withLock { lines in
            defer { lines = [] }
            return lines
        }
    }

    static func describe(_ push: DataPush) -> String {
        let kind = push.kind == .overwrite ? "d" : "m"
        let tag = push.tag.map { " t\($0)" } ?? ""
        return "\(kind) \(push.path.serverString) \(push.data.serialized())\(tag)"
    }
}
