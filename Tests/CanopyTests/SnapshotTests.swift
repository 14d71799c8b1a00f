import Canopy
import CanopyWire
import Foundation
import Testing

/// Snapshots, value export and Codable, checked through a client's local writes (no
/// server needed: local events fire at once).
@Suite struct SnapshotTests {
    /// A client that never connects (nobody listens on the network).
    let database = Database(url: "loopback://nobody?ns=test", transportFactory: LoopbackNetwork())

    /// The first `.value` snapshot of `ref` after writing `value` locally.
    private func snapshot(after value: Any?, priority: Any? = nil, at path: String = "item") async throws
        -> DataSnapshot
    {
        let ref = database.reference(withPath: path)
        send(value, priority: priority, to: ref)
        return try await ref.observeSingleEvent(of: .value)
    }

    @Test func scalarsBridgeLikeFirebase() async throws {
        let number = try await snapshot(after: 42)
        #expect(number.value as? Int == 42)
        #expect(number.value as? NSNumber == NSNumber(value: 42))
        #expect(number.intValue == 42)
        #expect(number.doubleValue == 42)
        let flag = try await snapshot(after: true, at: "flag")
        #expect(flag.value as? Bool == true)
        #expect(flag.boolValue == true)
        #expect(flag.intValue == nil)
        let text = try await snapshot(after: "hi", at: "text")
        #expect(text.value as? String == "hi")
        #expect(text.stringValue == "hi")
        let fraction = try await snapshot(after: 2.5, at: "fraction")
        #expect(fraction.doubleValue == 2.5)
        #expect(fraction.intValue == nil)
    }

    @Test func missingDataIsNSNullAndDoesNotExist() async throws {
        let ref = database.reference(withPath: "nothing/here")
        send(nil, to: ref)
        let empty = try await ref.observeSingleEvent(of: .value)
        #expect(empty.exists() == false)
        #expect(empty.value is NSNull)
        #expect(empty.priority is NSNull)
        #expect(empty.childrenCount == 0)
        #expect(empty.key == "here")
    }

    @Test func arraysExportAsArraysWithNSNullGaps() async throws {
        let dense = try await snapshot(after: ["a", "b", "c"], at: "dense")
        #expect(dense.value as? [String] == ["a", "b", "c"])
        let sparse = try await snapshot(after: ["0": "a", "2": "c"], at: "sparse")
        let values = try #require(sparse.value as? [Any])
        #expect(values.count == 3)
        #expect(values[0] as? String == "a")
        #expect(values[1] is NSNull)
        #expect(values[2] as? String == "c")
        // Too sparse (largest key ≥ 2 × count) stays a dictionary.
        let dictionary = try await snapshot(after: ["0": "a", "5": "f"], at: "tooSparse")
        let object = try #require(dictionary.value as? [String: Any])
        #expect(object["5"] as? String == "f")
        // Leading zeros are not array keys.
        let padded = try await snapshot(after: ["00": "a", "1": "b"], at: "padded")
        #expect(padded.value is [String: Any])
    }

    @Test func exportFormatKeepsPriorities() async throws {
        let leaf = try await snapshot(after: "v", priority: 7, at: "withPriority")
        #expect(leaf.priority as? Int == 7)
        let exported = try #require(leaf.valueInExportFormat() as? [String: Any])
        #expect(exported[".value"] as? String == "v")
        #expect(exported[".priority"] as? Int == 7)
        let list = try await snapshot(after: ["x", "y"], priority: "p", at: "list")
        let listExport = try #require(list.valueInExportFormat() as? [String: Any])
        #expect(listExport["0"] as? String == "x")
        #expect(listExport[".priority"] as? String == "p")
    }

    @Test func childrenNavigationAndOrder() async throws {
        let ref = database.reference(withPath: "scores")
        send(["b": ["n": 2], "a": ["n": 3], "c": ["n": 1]], to: ref)
        let snapshot = try await ref.observeSingleEvent(of: .value)
        #expect(snapshot.childrenCount == 3)
        #expect(snapshot.hasChildren())
        #expect(snapshot.hasChild("a/n"))
        #expect(!snapshot.hasChild("a/missing"))
        #expect(!snapshot.hasChild("bad.key"))
        #expect(snapshot.children.map(\.key) == ["a", "b", "c"])
        #expect(snapshot.childSnapshot(forPath: "b/n").value as? Int == 2)
        #expect(snapshot.childSnapshot(forPath: "b/n").ref.url.hasSuffix("/scores/b/n?ns=test"))
        let invalid = snapshot.childSnapshot(forPath: "a/$bad")
        #expect(!invalid.exists())
        #expect(invalid.ref.validationError?.code == .invalidArgument)
        let ordered = try await ref.queryOrdered(byChild: "n").observeSingleEvent(of: .value)
        #expect(ordered.children.map(\.key) == ["c", "b", "a"])
    }

    @Test func rootSnapshotKeyIsEmpty() async throws {
        let root = database.reference()
        #expect(root.key == nil)
        #expect(root.parent == nil)
        let child = root.child("a/b")
        #expect(child.key == "b")
        #expect(child.parent?.key == "a")
        #expect(child.root.key == nil)
        #expect(child.description == "loopback://nobody/a/b?ns=test")
    }
}
