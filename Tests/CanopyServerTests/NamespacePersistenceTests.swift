import CanopyServer
import CanopyStorage
import CanopyTree
import Foundation
import Testing

@Suite("Namespace persistence and limits")
struct NamespacePersistenceTests {
    let session = ServerSessionID("s")
    let auth = ConnectionAuth.unauthenticated

    @Test func committedWritesSurviveReopeningTheStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canopy-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ns.sqlite").path

        let first = try SQLiteTreeStore(path: file)
        let ns = try ServerNamespace(name: "p", store: first, clock: { 42 })
        await ns.open(session: session, sink: { _ in })
        let data = try JSONParser.parse(#"{"a":{".value":1,".priority":"p"},"t":{".sv":"timestamp"}}"#)
        #expect(await ns.put(session: session, path: "/x", data: data, hash: nil, auth: auth).status == .ok)
        let merge = try JSONParser.parse(#"{"x/b":true,"y/.priority":3,"z":"s"}"#)
        #expect(await ns.merge(session: session, path: "/", children: merge, auth: auth).status == .ok)
        #expect(
            await ns.put(session: session, path: "/x/a/.priority", data: .int(7), hash: nil, auth: auth).status == .ok)
        first.close()

        let second = try SQLiteTreeStore(path: file)
        let reopened = try ServerNamespace(name: "p", store: second, clock: { 0 })
        #expect(
            await reopened.value(at: "/").exportJSON().serialized()
                == #"{"x":{"a":{".value":1,".priority":7},"b":true,"t":42},"z":"s"}"#)
        second.close()
    }

    @Test func writesOverTheSizeLimitAreRefused() async throws {
        let ns = try ServerNamespace(name: "big", store: MemoryTreeStore(), clock: { 0 })
        await ns.open(session: session, sink: { _ in })
        let big = JSONValue.string(String(repeating: "x", count: TreeValidation.maxWriteBytes + 1))
        let put = await ns.put(session: session, path: "/big", data: big, hash: nil, auth: auth)
        #expect(put.status == .writeTooBig)
        let merge = await ns.merge(session: session, path: "/", children: .object([JSONMember("big", big)]), auth: auth)
        #expect(merge.status == .writeTooBig)
        #expect(await ns.value(at: "/") == .empty)
    }
}
