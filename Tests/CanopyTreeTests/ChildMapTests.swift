import CanopyTestSupport
import CanopyTree
import Testing

/// ChildMap against a simple sorted-array model, with enough children to exercise chunk
/// splits, merges and lookups across chunk boundaries.
@Suite struct ChildMapTests {
    /// The model: entries sorted by key order.
    private func sortedModel(_ model: [String: Int64]) -> [(ChildKey, Node)] {
        model.map { (ChildKey($0.key), Node(leaf: .int($0.value))) }.sorted { ChildKey.compare($0.0, $1.0) < 0 }
    }

    private func expectMatches(_ map: ChildMap, _ model: [String: Int64], probes: [ChildKey]) {
        let expected = sortedModel(model)
        #expect(map.count == expected.count)
        #expect(map.isEmpty == expected.isEmpty)
        let actual = Array(map.entries)
        #expect(actual.map(\.0) == expected.map(\.0))
        #expect(actual.map(\.1) == expected.map(\.1))
        #expect(map.orderedKeys == expected.map(\.0))
        #expect(map.first?.key == expected.first?.0)
        #expect(map.last?.key == expected.last?.0)
        let keys = expected.map(\.0)
        for probe in probes {
            #expect(map[probe] == model[probe.string].map { Node(leaf: .int($0)) })
            let before = keys.last { ChildKey.compare($0, probe) < 0 }
            let after = keys.first { ChildKey.compare($0, probe) > 0 }
            #expect(map.key(before: probe) == before, "key(before: \(probe))")
            #expect(map.key(after: probe) == after, "key(after: \(probe))")
        }
    }

    @Test func randomSetsAndRemovalsMatchASortedModel() {
        var random = SeededGenerator(seed: 42)
        var map = ChildMap.empty
        var model: [String: Int64] = [:]
        let universe = 600
        let probes = (0..<40).map { _ in ChildKey("k\(random.below(universe + 10))") } + ["0", "zzz", "5", "k"]
        for step in 1...3000 {
            let key = random.below(3) == 0 ? "\(random.below(universe))" : "k\(random.below(universe))"
            // Bias towards growth first, then towards shrinking, so chunks split and merge.
            let removes = random.below(100) < (step < 1500 ? 20 : 70)
            if removes {
                map = map.setting(ChildKey(key), .empty)
                model[key] = nil
            } else {
                map = map.setting(ChildKey(key), Node(leaf: .int(Int64(step))))
                model[key] = Int64(step)
            }
            if step % 250 == 0 { expectMatches(map, model, probes: probes) }
        }
        expectMatches(map, model, probes: probes)
        for key in model.keys { map = map.setting(ChildKey(key), .empty) }
        #expect(map.isEmpty)
        #expect(Array(map.entries).isEmpty)
    }

    @Test func equalityDoesNotDependOnHowTheMapWasBuilt() {
        let keys = (0..<500).map { "c\($0)" }
        let built = ChildMap(keys.map { (ChildKey($0), Node(leaf: .string($0))) })
        var grown = ChildMap.empty
        for key in keys.reversed() { grown = grown.setting(ChildKey(key), Node(leaf: .string(key))) }
        #expect(Node(children: built) == Node(children: grown))
        let changed = grown.setting("c250", Node(leaf: .string("other")))
        #expect(Node(children: built) != Node(children: changed))
        #expect(Node(children: built) != Node(children: built.setting("c999", Node(leaf: .bool(true)))))
        #expect(Node(children: built) == Node(children: built.setting("c250", Node(leaf: .string("c250")))))
    }

    @Test func unchangedRemovalReturnsAnEqualMap() {
        let map = ChildMap((0..<200).map { (ChildKey("\($0)"), Node(leaf: .int(Int64($0)))) })
        #expect(Node(children: map.setting("missing", .empty)) == Node(children: map))
        #expect(map.key(before: "0") == nil)
        #expect(map.key(after: "199") == nil)
        #expect(map.key(before: "100") == "99")
        #expect(map.key(after: "63") == "64")
        #expect(map.key(before: "64") == "63")
    }
}
