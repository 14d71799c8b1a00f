import CanopyServer
import CanopyTree
import Testing

@Suite("OnDisconnectQueue")
struct OnDisconnectQueueTests {
    func node(_ text: String) throws -> Node { try Node(json: try JSONParser.parse(text)) }

    func describe(_ queue: OnDisconnectQueue) -> [String] {
        queue.pending.map { "\($0.path.serverString)=\($0.value.exportJSON().serialized())" }
    }

    @Test func setReplacesPendingSetsBelowAndMergesIntoAnAncestor() throws {
        var queue = OnDisconnectQueue()
        queue.set(try node("1"), at: "/a/b")
        queue.set(try node("2"), at: "/a/c")
        queue.set(try node("3"), at: "/z")
        queue.set(try node(#"{"x":true}"#), at: "/a")
        #expect(describe(queue) == [#"a={"x":true}"#, "z=3"])
        queue.set(try node("4"), at: "/a/y")
        #expect(describe(queue) == [#"a={"x":true,"y":4}"#, "z=3"])
    }

    @Test func mergeSetsEachKey() throws {
        var queue = OnDisconnectQueue()
        queue.merge([("b", try node("1")), ("c/d", try node("2"))], at: "/a")
        #expect(describe(queue) == ["a/b=1", "a/c/d=2"])
    }

    @Test func cancelDropsBelowAndSplitsAnAncestor() throws {
        var queue = OnDisconnectQueue()
        queue.set(try node(#"{"x":1,"y":{"p":1,"q":2},"z":3}"#), at: "/a")
        queue.set(try node("9"), at: "/other")
        queue.cancel(at: "/a/y/q")
        #expect(describe(queue) == ["a/x=1", "a/z=3", "a/y/p=1", "other=9"])
        queue.cancel(at: "/a")
        #expect(describe(queue) == ["other=9"])
        var leafQueue = OnDisconnectQueue()
        leafQueue.set(try node("5"), at: "/l")
        leafQueue.cancel(at: "/l/deeper")
        #expect(describe(leafQueue) == ["l=5"])
        #expect(leafQueue.drain().count == 1)
        #expect(leafQueue.isEmpty)
    }
}
