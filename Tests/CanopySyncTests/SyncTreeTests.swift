import CanopySync
import CanopyTree
import Testing

/// A registration for tests: every type, optionally wanting cancel events.
private final class TestRegistration: EventRegistration {
    let wantsCancel: Bool
    init(wantsCancel: Bool = false) { self.wantsCancel = wantsCancel }
    func responds(to type: EventType) -> Bool { true }
    var receivesCancel: Bool { wantsCancel }
}

@Suite struct SyncTreeTests {
    private func node(_ text: String) throws -> Node { try Node(jsonText: text) }

    @Test func listenCompleteRaisesNullValueForMissingData() throws {
        let provider = CapturingListenProvider()
        let tree = SyncTree(listenProvider: provider)
        let query = QuerySpec.defaultQuery(at: Path("a"))
        #expect(tree.addEventRegistration(TestRegistration(), for: query).isEmpty)
        let listen = try #require(provider.listen(for: query))
        #expect(listen.tag == nil)
        #expect(listen.hash() == "")
        let events = listen.onComplete(.ok)
        #expect(events.count == 1)
        #expect(events.first?.type == .value)
        #expect(events.first?.node == .empty)
    }

    @Test func hashReflectsTheServerCache() throws {
        let provider = CapturingListenProvider()
        let tree = SyncTree(listenProvider: provider)
        let query = QuerySpec.defaultQuery(at: Path("a"))
        _ = tree.addEventRegistration(TestRegistration(), for: query)
        let data = try node(#"{"x": 1}"#)
        _ = tree.applyServerOverwrite(path: Path("a"), node: data)
        #expect(try #require(provider.listen(for: query)).hash() == data.hash)
    }

    @Test func failedListenCancelsRegistrationsWithoutStopping() throws {
        let provider = CapturingListenProvider()
        let tree = SyncTree(listenProvider: provider)
        let query = QuerySpec.defaultQuery(at: Path("secret"))
        let wantsCancel = TestRegistration(wantsCancel: true)
        _ = tree.addEventRegistration(wantsCancel, for: query)
        _ = tree.addEventRegistration(TestRegistration(), for: query)
        let listen = try #require(provider.listen(for: query))
        let events = listen.onComplete(.failed(reason: "permission_denied"))
        #expect(events.count == 1)
        #expect(events.first?.registration === wantsCancel)
        if case .cancel(let reason)? = events.first?.kind {
            #expect(reason == "permission_denied")
        } else {
            Issue.record("expected a cancel event")
        }
        #expect(provider.stopped.isEmpty)
        #expect(tree.syncPoints.isEmpty)
        #expect(tree.applyServerOverwrite(path: Path("secret"), node: Node(leaf: .int(1))).isEmpty)
    }

    @Test func tagsStartAtOneAndAreNotReused() throws {
        let tree = SyncTree(listenProvider: CapturingListenProvider())
        let first = QuerySpec(path: Path("a"), params: try QueryParams.default.limited(toFirst: 1))
        let last = QuerySpec(path: Path("a"), params: try QueryParams.default.limited(toLast: 1))
        let other = QuerySpec(path: Path("b"), params: try QueryParams.default.limited(toLast: 2))
        let registration = TestRegistration()
        _ = tree.addEventRegistration(registration, for: first)
        _ = tree.addEventRegistration(registration, for: last)
        #expect(tree.tag(for: first) == 1)
        #expect(tree.tag(for: last) == 2)
        _ = tree.removeEventRegistration(registration, for: first)
        #expect(tree.tag(for: first) == nil)
        _ = tree.addEventRegistration(registration, for: other)
        #expect(tree.tag(for: other) == 3)
        // A query that loads all data gets no tag.
        let ordered = QuerySpec(path: Path("c"), params: try QueryParams.default.ordered(by: .value))
        _ = tree.addEventRegistration(registration, for: ordered)
        #expect(tree.tag(for: ordered) == nil)
    }

    @Test func taggedDataForAnUnknownTagIsDropped() throws {
        let tree = SyncTree(listenProvider: CapturingListenProvider())
        #expect(tree.applyTaggedQueryOverwrite(path: Path("a"), node: Node(leaf: .int(1)), tag: 7).isEmpty)
    }

    @Test func defaultListenShadowsDeeperListensAndHandsThemBack() throws {
        let provider = CapturingListenProvider()
        let tree = SyncTree(listenProvider: provider)
        let registration = TestRegistration()
        let child = QuerySpec.defaultQuery(at: Path("a/b"))
        let limited = QuerySpec(path: Path("a/c"), params: try QueryParams.default.limited(toFirst: 2))
        let parent = QuerySpec.defaultQuery(at: Path("a"))
        _ = tree.addEventRegistration(registration, for: child)
        _ = tree.addEventRegistration(registration, for: limited)
        #expect(provider.activeDescriptions == ["/a/b default -", "/a/c \(limited.params.identifier) 1"])
        _ = tree.addEventRegistration(registration, for: parent)
        #expect(provider.activeDescriptions == ["/a default -"])
        _ = tree.removeEventRegistration(registration, for: parent)
        #expect(provider.activeDescriptions == ["/a/b default -", "/a/c \(limited.params.identifier) 1"])
    }

    @Test func removingOneRegistrationKeepsTheOthers() throws {
        let tree = SyncTree(listenProvider: CapturingListenProvider())
        let query = QuerySpec.defaultQuery(at: Path("a"))
        let first = TestRegistration()
        let second = TestRegistration()
        _ = tree.addEventRegistration(first, for: query)
        _ = tree.addEventRegistration(second, for: query)
        _ = tree.removeEventRegistration(first, for: query)
        let events = tree.applyServerOverwrite(path: Path("a"), node: Node(leaf: .int(1)))
        #expect(events.count == 1)
        #expect(events.first?.registration === second)
        _ = tree.removeEventRegistration(nil, for: query)
        #expect(tree.syncPoints.isEmpty)
    }

    @Test func hiddenWritesOnlyCountWhenAskedFor() throws {
        let tree = SyncTree(listenProvider: CapturingListenProvider())
        let registration = TestRegistration()
        _ = tree.addEventRegistration(registration, for: .defaultQuery(at: Path("a")))
        _ = tree.applyServerOverwrite(path: Path("a"), node: Node(leaf: .int(1)))
        #expect(tree.applyUserOverwrite(path: Path("a"), node: Node(leaf: .int(2)), writeId: 0, isVisible: false).isEmpty)
        #expect(tree.calcCompleteEventCache(at: Path("a")) == Node(leaf: .int(2)))
        #expect(tree.calcCompleteEventCache(at: Path("a"), excluding: [0]) == Node(leaf: .int(1)))
        // Removing an invisible write changes nothing visible.
        #expect(tree.ackUserWrite(writeId: 0, revert: true).isEmpty)
    }

    @Test func removeAllWritesRevertsLocalData() throws {
        let tree = SyncTree(listenProvider: CapturingListenProvider())
        _ = tree.addEventRegistration(TestRegistration(), for: .defaultQuery(at: Path("a")))
        _ = tree.applyServerOverwrite(path: Path("a"), node: try node(#"{"x": 1}"#))
        let local = tree.applyUserMerge(path: Path("a"), children: [(Path("y"), Node(leaf: .int(2)))], writeId: 0)
        #expect(local.map(\.type) == [.childAdded, .value])
        let reverted = tree.removeAllWrites()
        #expect(reverted.map(\.type) == [.childRemoved, .value])
        #expect(reverted.last?.node == (try node(#"{"x": 1}"#)))
        #expect(tree.writeTree.allWrites.isEmpty)
    }
}
