import CanopyServer
import CanopyTree
import CanopyWire
import Synchronization

/// Collects the pushes a namespace sends to one test connection, as readable lines such as
/// `d rooms/r1 {"title":"hi"}`, `m a {"b":1} t2` or `c {"p":"a"}`.
final class PushLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// The sink to hand to `ServerNamespace.open(session:sink:)`.
    var sink: @Sendable (ServerPush) -> Void {
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

    static func describe(_ push: ServerPush) -> String {
        switch push {
        case .data(let path, let data, let tag), .merge(let path, let data, let tag):
            let tagText = tag.map { " t\($0)" } ?? ""
            return "\(push.action) \(path.serverString) \(data.serialized())\(tagText)"
        default:
            return "\(push.action) \(push.body.serialized())"
        }
    }
}
