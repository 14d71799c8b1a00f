import Canopy
import Foundation
import Testing

/// The blog sample of the FirebaseDatabase guides, end to end against an in-process server.
@Suite struct BlogAppTests {
    @Test func usersPostsFanOutStarsAndViews() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        try await BlogScenario.run(on: server)
    }

    @Test func priorities() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let database = server.database()
        let list = database.reference(withPath: "list")
        try await list.child("a").setValue("A", andPriority: 3)
        try await list.child("b").setValue("B", andPriority: 1)
        try await list.child("c").setValue("C")
        try await list.child("c").setPriority(2)
        #expect(try await server.value(at: "list/b") == #"{".value":"B",".priority":1}"#)
        let snapshot = try await server.database().reference(withPath: "list").getData()
        #expect(snapshot.children.map(\.key) == ["b", "c", "a"])
        #expect(snapshot.childSnapshot(forPath: "c").priority as? Int == 2)
        let byKey = try await list.queryOrderedByKey().getData()
        #expect(byKey.children.map(\.key) == ["a", "b", "c"])
    }
}
