import CanopySync
import CanopyTree

/// Runs one conformance case against a fresh sync tree, at the root or under a prefix, and
/// compares the events each step returns with the expectation (client-design.md §14).
final class SpecCaseRunner {
    private let prefix: Path
    private let provider = RecordingListenProvider()
    private let tree: SyncTree
    private var nextWriteId = 0
    private var registrations: [Int: SpecRegistration] = [:]

    init(prefix: Path) {
        self.prefix = prefix
        tree = SyncTree(listenProvider: provider)
    }

    /// An expected event, paths already prefixed.
    private struct Expected: CustomStringConvertible {
        let type: EventType
        let path: Path
        let node: Node
        let key: ChildKey?
        let previousKey: ChildKey?

        var description: String {
            "\(type.name) @\(path) key=\(key?.string ?? "-") prev=\(previousKey?.string ?? "nil") "
                + "data=\(node.exportJSON().serialized())"
        }
    }

    func run(_ specCase: SyncPointSpec.Case) throws(SpecError) {
        for (index, step) in specCase.steps.enumerated() {
            let type = step["type"]?.stringValue ?? "?"
            let label = "step \(index) (\(type)\(step[".comment"]?.stringValue.map { ": " + $0 } ?? ""))"
            let events: [Event]
            do {
                events = try perform(step, type: type)
            } catch {
                throw SpecError.malformed("\(label): \(error)")
            }
            let listenFailures = provider.takeFailures()
            if !listenFailures.isEmpty {
                throw .mismatch("\(label): \(listenFailures.joined(separator: "; "))")
            }
            guard case .array(let expectedJSON)? = step["events"] else { throw .malformed("\(label): no events") }
            let expected: [Expected]
            do {
                expected = try expectedJSON.map(parseExpected)
            } catch {
                throw SpecError.malformed("\(label): \(error)")
            }
            if let problem = compare(events, expected, ordered: type == "listen" || type == "unlisten") {
                throw .mismatch(
                    "\(label): \(problem)\n  expected:\n"
                        + expected.map { "    \($0)" }.joined(separator: "\n") + "\n  actual:\n"
                        + events.map { "    \(describe($0))" }.joined(separator: "\n"))
            }
        }
    }

    // MARK: - Steps

    private func perform(_ step: JSONValue, type: String) throws(SpecError) -> [Event] {
        switch type {
        case "listen":
            let query = try querySpec(path: path(step), params: step["params"])
            let registration = self.registration(step["callbackId"])
            let events = tree.addEventRegistration(registration, for: query)
            if let expectedTag = step["params"]?["tag"], !query.params.loadsAllData {
                let actual = tree.tag(for: query)
                guard case .int(let tag) = expectedTag, actual == Int(tag) else {
                    throw .mismatch("query tagged \(actual.map(String.init) ?? "nil"), expected \(expectedTag)")
                }
            }
            return events
        case "unlisten":
            guard let id = step["callbackId"], case .int(let number) = id, let registration = registrations[Int(number)]
            else { throw .malformed("unlisten without a known callbackId") }
            return tree.removeEventRegistration(registration, for: .defaultQuery(at: try path(step)))
        case "serverUpdate":
            let node = try self.node(step["data"])
            if let tag = try tag(step) {
                return tree.applyTaggedQueryOverwrite(path: try path(step), node: node, tag: tag)
            }
            return tree.applyServerOverwrite(path: try path(step), node: node)
        case "serverMerge":
            let children = try mergeChildren(step["data"])
            if let tag = try tag(step) {
                return tree.applyTaggedQueryMerge(path: try path(step), children: children, tag: tag)
            }
            return tree.applyServerMerge(path: try path(step), children: children)
        case "set":
            let visible: Bool
            switch step["visible"] {
            case nil: visible = true
            case .bool(let b)?: visible = b
            default: throw .malformed("visible is not a boolean")
            }
            let writeId = takeWriteId()
            return tree.applyUserOverwrite(path: try path(step), node: try node(step["data"]), writeId: writeId, isVisible: visible)
        case "update":
            let writeId = takeWriteId()
            return tree.applyUserMerge(path: try path(step), children: try mergeChildren(step["data"]), writeId: writeId)
        case "ackUserWrite":
            guard case .int(let writeId)? = step["writeId"] else { throw .malformed("ackUserWrite without writeId") }
            let revert: Bool
            switch step["revert"] {
            case nil: revert = false
            case .bool(let b)?: revert = b
            default: throw .malformed("revert is not a boolean")
            }
            return tree.ackUserWrite(writeId: Int(writeId), revert: revert)
        case "suppressWarning":
            return []
        default:
            throw .malformed("unknown step type \(type)")
        }
    }

    private func takeWriteId() -> Int {
        defer { nextWriteId += 1 }
        return nextWriteId
    }

    private func registration(_ callbackId: JSONValue?) -> SpecRegistration {
        guard case .int(let number)? = callbackId else { return SpecRegistration(callbackId: nil) }
        let id = Int(number)
        if let existing = registrations[id] { return existing }
        let created = SpecRegistration(callbackId: id)
        registrations[id] = created
        return created
    }

    private func path(_ step: JSONValue) throws(SpecError) -> Path {
        guard let text = step["path"]?.stringValue else { throw .malformed("step without a path") }
        return prefix.child(Path(text))
    }

    private func tag(_ step: JSONValue) throws(SpecError) -> Int? {
        switch step["tag"] {
        case nil, .null?: return nil
        case .int(let tag)?: return Int(tag)
        default: throw .malformed("tag is not an integer")
        }
    }

    private func node(_ json: JSONValue?) throws(SpecError) -> Node {
        guard let json else { throw .malformed("step without data") }
        do {
            return try Node(json: json)
        } catch {
            throw .malformed("bad data: \(error)")
        }
    }

    private func mergeChildren(_ json: JSONValue?) throws(SpecError) -> [(path: Path, node: Node)] {
        guard case .object(let members)? = json else { throw .malformed("merge data is not an object") }
        var children: [(path: Path, node: Node)] = []
        for member in members { children.append((Path(member.key), try node(member.value))) }
        return children
    }

    // MARK: - Queries

    private func querySpec(path: Path, params json: JSONValue?) throws(SpecError) -> QuerySpec {
        guard let json else { return .defaultQuery(at: path) }
        guard case .object(let members) = json else { throw .malformed("params is not an object") }
        let known: Set<String> = [
            "tag", "orderBy", "orderByKey", "orderByPriority", "orderByValue", "startAt", "endAt", "equalTo",
            "startAfter", "endBefore", "limitToFirst", "limitToLast",
        ]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw .malformed("unknown query parameter \(unknown.key)")
        }
        do {
            var params = QueryParams.default
            if let child = json["orderBy"] {
                guard let path = child.stringValue else { throw SpecError.malformed("orderBy is not a string") }
                params = try params.ordered(byChild: path)
            }
            if json["orderByKey"] == .bool(true) { params = try params.ordered(by: .key) }
            if json["orderByPriority"] == .bool(true) { params = try params.ordered(by: .priority) }
            if json["orderByValue"] == .bool(true) { params = try params.ordered(by: .value) }
            if let bound = json["startAt"] {
                let (value, key) = try self.bound(bound)
                params = try params.starting(at: value, childKey: key)
            }
            if let bound = json["startAfter"] {
                let (value, key) = try self.bound(bound)
                params = try params.starting(after: value, childKey: key)
            }
            if let bound = json["endAt"] {
                let (value, key) = try self.bound(bound)
                params = try params.ending(at: value, childKey: key)
            }
            if let bound = json["endBefore"] {
                let (value, key) = try self.bound(bound)
                params = try params.ending(before: value, childKey: key)
            }
            if let bound = json["equalTo"] {
                let (value, key) = try self.bound(bound)
                params = try params.equal(to: value, childKey: key)
            }
            if case .int(let count)? = json["limitToFirst"] { params = try params.limited(toFirst: Int(count)) }
            if case .int(let count)? = json["limitToLast"] { params = try params.limited(toLast: Int(count)) }
            return QuerySpec(path: path, params: params)
        } catch let error as SpecError {
            throw error
        } catch {
            throw .malformed("invalid query: \(error)")
        }
    }

    private func bound(_ json: JSONValue) throws(SpecError) -> (LeafValue?, ChildKey?) {
        let key = json["name"]?.stringValue.map { ChildKey($0) }
        switch json["index"] {
        case nil, .null?: return (nil, key)
        case .bool(let b)?: return (.bool(b), key)
        case .int(let i)?: return (.int(i), key)
        case .double(let d)?: return (.double(d), key)
        case .string(let s)?: return (.string(s), key)
        default: throw .malformed("bound value is not a leaf")
        }
    }

    // MARK: - Comparing events

    private func parseExpected(_ json: JSONValue) throws(SpecError) -> Expected {
        guard let typeName = json["type"]?.stringValue,
            let type = EventType.allCases.first(where: { $0.name == typeName })
        else { throw .malformed("unknown event type") }
        guard let path = json["path"]?.stringValue else { throw .malformed("event without a path") }
        let key = json["name"]?.stringValue.map { ChildKey($0) }
        let previous = json["prevName"]?.stringValue.map { ChildKey($0) }
        return Expected(type: type, path: prefix.child(Path(path)), node: try node(json["data"]), key: key, previousKey: previous)
    }

    private func describe(_ event: Event) -> String {
        "\(event.type?.name ?? "cancel") @\(event.query.path) key=\(event.childKey?.string ?? "-") "
            + "prev=\(event.previousChildKey?.string ?? "nil") data=\(event.node.exportJSON().serialized())"
    }

    private func matches(_ event: Event, _ expected: Expected) -> Bool {
        guard event.type == expected.type, event.node == expected.node else { return false }
        if expected.type == .value { return true }
        guard event.childKey == expected.key else { return false }
        return expected.type == .childRemoved || event.previousChildKey == expected.previousKey
    }

    private static let rank: [EventType: Int] = [
        .childRemoved: 0, .childAdded: 1, .childMoved: 2, .childChanged: 3, .value: 4,
    ]

    /// A description of the first difference, or `nil` when the events match.
    private func compare(_ actual: [Event], _ expected: [Expected], ordered: Bool) -> String? {
        guard actual.count == expected.count else {
            return "expected \(expected.count) events, got \(actual.count)"
        }
        if ordered {
            for (i, (event, exp)) in zip(actual, expected).enumerated() {
                if event.query.path != exp.path || !matches(event, exp) { return "event \(i) differs" }
            }
            return nil
        }
        var start = 0
        while start < expected.count {
            let runPath = expected[start].path
            var end = start
            while end < expected.count && expected[end].path == runPath { end += 1 }
            var unused = Array(expected[start..<end])
            var lastRank: [ObjectIdentifier: Int] = [:]
            for event in actual[start..<end] {
                guard event.query.path == runPath else {
                    return "event for \(event.query.path) where the run for \(runPath) was expected"
                }
                guard let type = event.type, let rank = SpecCaseRunner.rank[type] else { return "unexpected cancel event" }
                let id = ObjectIdentifier(event.registration)
                if let previous = lastRank[id], previous > rank { return "event types out of order for a listener" }
                lastRank[id] = rank
                guard let found = unused.firstIndex(where: { matches(event, $0) }) else {
                    return "unexpected event \(describe(event))"
                }
                unused.remove(at: found)
            }
            start = end
        }
        return nil
    }
}
