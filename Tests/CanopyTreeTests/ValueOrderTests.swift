import CanopyTree
import Testing

@Suite struct ValueOrderTests {
    typealias F = QueryFixtures

    /// Nodes in ascending value order; neighbours within a group are equal.
    static let ascending: [[Node]] = [
        [.empty],
        [F.leaf(.serverValue(.timestamp)), F.leaf(.serverValue(.incrementInt(1)))],
        [F.leaf(.bool(false))],
        [F.leaf(.bool(true))],
        [F.leaf(.double(-Double.greatestFiniteMagnitude))],
        [F.int(-5)],
        [F.int(0), F.leaf(.double(-0.0))],
        [F.leaf(.double(0.5))],
        [F.int(1), F.leaf(.double(1.0))],
        [F.int(10)],
        [F.leaf(.double(1e300))],
        [F.string("")],
        [F.string("1")],
        [F.string("A")],
        [F.string("a")],
        [F.string("\u{1F600}")],  // surrogate pair D83D: before U+FFFD in UTF-16 order
        [F.string("\u{FFFD}")],
        [F.object([("a", F.int(1))]), F.object([("z", F.string("zz"))], priority: .int(9))],
    ]

    @Test func valueOrderAcrossTypes() {
        for (i, group) in Self.ascending.enumerated() {
            for (j, other) in Self.ascending.enumerated() {
                for a in group {
                    for b in other {
                        let c = ValueOrder.compare(a, b)
                        let expected = i == j ? 0 : (i < j ? -1 : 1)
                        #expect(c.signum() == expected, "group \(i) vs group \(j)")
                    }
                }
            }
        }
    }

    @Test func priorityOrder() {
        let ascending: [[LeafValue?]] = [
            [nil],
            [.double(-1.5)],
            [.int(0), .double(0)],
            [.int(3)],
            [.string("")],
            [.string("a")],
            [.string("b")],
        ]
        for (i, group) in ascending.enumerated() {
            for (j, other) in ascending.enumerated() {
                for a in group {
                    for b in other {
                        let expected = i == j ? 0 : (i < j ? -1 : 1)
                        #expect(ValueOrder.comparePriorities(a, b).signum() == expected, "\(i) vs \(j)")
                    }
                }
            }
        }
    }

    @Test func prioritiesIgnoredByValueOrder() {
        #expect(ValueOrder.compare(F.int(1, priority: .int(100)), F.int(1)) == 0)
    }
}
