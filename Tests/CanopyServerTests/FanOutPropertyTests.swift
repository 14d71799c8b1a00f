import CanopyServer
import CanopyStorage
import CanopyTestSupport
import CanopyTree
import CanopyWire
import Synchronization
import Testing

/// Applies the pushes one connection receives to local copies, the way a client would: an
/// untagged copy of the whole tree and one copy per tagged query result.
final class PushMirror: Sendable {
    private let state = Mutex<(tree: Node, windows: [Int64: Node], failures: [String])>((.empty, [:], []))

    var sink: @Sendable (ServerPush) -> Void {
        { push in self.apply(push) }
    }

    private func apply(_ push: ServerPush) {
        state.withLock { state in
            do {
                switch push {
                case .data(let path, let data, nil):
                    state.tree = state.tree.updating(at: path, try Node(json: data))
                case .merge(let path, .object(let members), nil):
                    for member in members {
                        state.tree = state.tree.updating(at: path.child(member.key), try Node(json: member.value))
                    }
                case .data(let path, let data, let tag?):
                    // Tagged queries in this test all live at /a.
                    let relative = path.relative(to: "/a") ?? .root
                    let window = state.windows[tag] ?? .empty
                    state.windows[tag] = window.updating(at: relative, try Node(json: data))
                default:
                    state.failures.append("unexpected push \(push)")
                }
            } catch {
                state.failures.append("bad push data: \(error)")
            }
        }
    }

    var tree: Node { state.withLock { $0.tree } }
    func window(_ tag: Int64) -> Node { state.withLock { $0.windows[tag] ?? .empty } }
    var failures: [String] { state.withLock { $0.failures } }
}

@Suite("Fan-out keeps every listener's copy equal to the server")
struct FanOutPropertyTests {
    let auth = ConnectionAuth.unauthenticated

    func randomPath(_ rng: inout SeededGenerator) -> Path {
        let depth = Int.random(in: 1...3, using: &rng)
        let levels: [[String]] = [["a", "b"], ["x", "y", "z", "w"], ["p", "q"]]
        return Path(keys: (0..<depth).map { ChildKey(levels[$0].randomElement(using: &rng) ?? "a") })
    }

    func randomValue(_ rng: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .null
        case 1: return .int(Int64.random(in: -5...20, using: &rng))
        case 2: return .string(["s", "t", "u"].randomElement(using: &rng) ?? "s")
        case 3:
            return .object([JSONMember("p", .int(Int64.random(in: 0...9, using: &rng))), JSONMember("q", .bool(true))])
        case 4:
            return .object([
                JSONMember(".value", .int(Int64.random(in: 0...9, using: &rng))),
                JSONMember(".priority", .int(Int64.random(in: 0...3, using: &rng))),
            ])
        default: return .object([JSONMember(".sv", .object([JSONMember("increment", .int(1))]))])
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomWritesKeepDefaultAndTaggedCopiesExact(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let ns = try ServerNamespace(name: "prop", store: MemoryTreeStore(), clock: { 1000 })
        let whole = PushMirror()
        let below = PushMirror()
        let writer = ServerSessionID("writer")
        await ns.open(session: writer, sink: { _ in })
        await ns.open(session: ServerSessionID("whole"), sink: whole.sink)
        await ns.open(session: ServerSessionID("below"), sink: below.sink)
        _ = await ns.listen(session: ServerSessionID("whole"), path: "/", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(session: ServerSessionID("whole"), path: "/a", query: nil, tag: nil, auth: auth)
        _ = await ns.listen(session: ServerSessionID("below"), path: "/a/x", query: nil, tag: nil, auth: auth)
        let queries: [Int64: JSONValue] = [
            1: try JSONParser.parse(#"{"i":".value","l":2,"vf":"r"}"#),
            2: try JSONParser.parse(#"{"l":3,"vf":"l"}"#),
            3: try JSONParser.parse(#"{"i":"p","sp":2,"ep":7,"l":2,"vf":"l"}"#),
            4: try JSONParser.parse(#"{"i":".key","sp":"x","sin":false}"#),
        ]
        for (tag, query) in queries.sorted(by: { $0.key < $1.key }) {
            _ = await ns.listen(session: ServerSessionID("below"), path: "/a", query: query, tag: tag, auth: auth)
        }
        for step in 0..<250 {
            if Bool.random(using: &rng) {
                let path = randomPath(&rng)
                _ = await ns.put(session: writer, path: path, data: randomValue(&rng), hash: nil, auth: auth)
            } else {
                let base = Bool.random(using: &rng) ? Path.root : Path("/a")
                var members: [JSONMember] = []
                var used: [Path] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let relative = randomPath(&rng)
                    guard !used.contains(where: { $0.contains(relative) || relative.contains($0) }) else { continue }
                    used.append(relative)
                    members.append(JSONMember(relative.keys.map(\.string).joined(separator: "/"), randomValue(&rng)))
                }
                _ = await ns.merge(session: writer, path: base, children: .object(members), auth: auth)
            }
            let server = await ns.value(at: .root)
            var mismatches: [String] = []
            if whole.tree != server { mismatches.append("the root copy") }
            if below.tree.child(at: "/a/x") != server.child(at: "/a/x") { mismatches.append("the /a/x copy") }
            for (tag, query) in queries.sorted(by: { $0.key < $1.key }) {
                let expected = try QueryParams(wire: query).filter(server.child(at: "/a"))
                if below.window(tag) != expected {
                    mismatches.append(
                        "tag \(tag): \(below.window(tag).exportJSON().serialized()) "
                            + "instead of \(expected.exportJSON().serialized())")
                }
            }
            #expect(mismatches.isEmpty, "seed \(seed), step \(step): \(mismatches)")
            if !mismatches.isEmpty { break }
        }
        #expect(whole.failures.isEmpty && below.failures.isEmpty)
    }
}
