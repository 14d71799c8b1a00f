import CanopyBenchmarkSupport
import CanopyTree

/// The benchmark's data: a location with many children and a deterministic stream of
/// server updates to it — mostly overwrites of existing children, some merges into a child,
/// and some new children whose keys sort last (so they enter a `limitToLast` window).
struct SyncWorkload {
    /// One server update below the location.
    enum Update {
        /// Replaces the child at `path` (relative to the location).
        case overwrite(path: Path, node: Node, json: JSONValue)
        /// Sets `children` (paths relative to the child at `path`).
        case merge(path: Path, children: [(path: Path, node: Node)], json: JSONValue)
    }

    /// The location every update goes below.
    let location: Path
    /// The location's data before the updates.
    let initial: Node
    /// The same data in export JSON form.
    let initialJSON: JSONValue
    /// The updates, in order.
    let updates: [Update]

    /// Builds `childCount` children and `updateCount` updates from a fixed seed.
    init(location: Path, childCount: Int, updateCount: Int) throws {
        self.location = location
        var random = SplitMix64(seed: 20_261_129)
        var members: [JSONMember] = []
        for index in 0..<childCount {
            members.append(JSONMember(Self.key(index), Self.child(index, version: 0)))
        }
        initialJSON = .object(members)
        initial = try Node(json: initialJSON)
        var updates: [Update] = []
        updates.reserveCapacity(updateCount)
        var nextNew = childCount
        for version in 1...max(1, updateCount) {
            let roll = random.below(100)
            if roll < 5 {
                let json = Self.child(nextNew, version: version)
                updates.append(
                    .overwrite(path: Path(keys: [ChildKey(Self.key(nextNew))]), node: try Node(json: json), json: json))
                nextNew += 1
            } else if roll < 20 {
                let index = random.below(childCount)
                let json = JSONValue.object([
                    JSONMember("n", .int(Int64(version))), JSONMember("seen", .bool(version % 2 == 0)),
                ])
                updates.append(
                    .merge(
                        path: Path(keys: [ChildKey(Self.key(index))]),
                        children: [
                            (Path("n"), Node(leaf: .int(Int64(version)))),
                            (Path("seen"), Node(leaf: .bool(version % 2 == 0))),
                        ], json: json))
            } else {
                let index = random.below(childCount)
                let json = Self.child(index, version: version)
                updates.append(
                    .overwrite(path: Path(keys: [ChildKey(Self.key(index))]), node: try Node(json: json), json: json))
            }
        }
        self.updates = Array(updates.prefix(updateCount))
    }

    /// The key of child `index`; zero-padded so key order is numeric order.
    static func key(_ index: Int) -> String {
        let digits = String(index)
        return "item" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// A small record such as a list row holds.
    static func child(_ index: Int, version: Int) -> JSONValue {
        .object([
            JSONMember("n", .int(Int64(version))),
            JSONMember("title", .string("row \(index)")),
            JSONMember("owner", .string("user\(index % 97)")),
        ])
    }
}
