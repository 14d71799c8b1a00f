import Canopy
import Foundation
import Testing

/// The blog sample of the FirebaseDatabase guides: users, posts fanned out to `/user-posts`
/// with one update and `childByAutoId`, stars toggled by transactions from two clients, view
/// counts with `ServerValue.increment`, a server timestamp and a removal.
public enum BlogScenario {
    /// Runs the scenario against `server` with two clients.
    public static func run(on server: some ScenarioServer) async throws {
        let alice = server.database()
        let bob = server.database()
        let root = alice.reference()

        // Users.
        try await root.child("users/alice").setValue(["username": "alice", "email": "a@example.com"])
        #expect(try await server.value(at: "users/alice/username") == "\"alice\"")

        // A new post, fanned out to /posts and /user-posts with one atomic update.
        let key = try #require(root.child("posts").childByAutoId().key)
        #expect(key.count == 20)
        let post: [String: Any] = [
            "uid": "alice", "author": "alice", "title": "Hello", "body": "First post", "starCount": 0,
        ]
        try await root.updateChildValues(["/posts/\(key)": post, "/user-posts/alice/\(key)": post])
        #expect(try await server.value(at: "posts/\(key)/title") == "\"Hello\"")
        #expect(try await server.value(at: "user-posts/alice/\(key)/title") == "\"Hello\"")

        // Another client sees the post, in push-id order after an earlier one.
        let earlier = "-" + String(repeating: "0", count: 19)
        try await root.child("posts/\(earlier)").setValue(["title": "Earlier", "starCount": 0])
        let posts = try await bob.reference(withPath: "posts").getData()
        #expect(posts.children.map(\.key) == [earlier, key])
        #expect(posts.childSnapshot(forPath: "\(key)/body").value as? String == "First post")

        // Star toggling with a transaction, from both clients.
        let toggleStar: @Sendable (String) -> @Sendable (MutableData) -> TransactionResult = { uid in
            { data in
                guard var post = data.value as? [String: Any] else { return .success(withValue: data) }
                var stars = post["stars"] as? [String: Bool] ?? [:]
                var starCount = post["starCount"] as? Int ?? 0
                if stars[uid] != nil {
                    starCount -= 1
                    stars[uid] = nil
                } else {
                    starCount += 1
                    stars[uid] = true
                }
                post["starCount"] = starCount
                post["stars"] = stars
                data.value = post
                return .success(withValue: data)
            }
        }
        let (committedA, afterA) = try await alice.reference(withPath: "posts/\(key)").runTransactionBlock(
            toggleStar("alice"))
        #expect(committedA)
        #expect(afterA.childSnapshot(forPath: "starCount").value as? Int == 1)
        let (committedB, afterB) = try await bob.reference(withPath: "posts/\(key)").runTransactionBlock(
            toggleStar("bob"))
        #expect(committedB)
        #expect(afterB.childSnapshot(forPath: "starCount").value as? Int == 2)
        #expect(try await server.value(at: "posts/\(key)/stars") == #"{"alice":true,"bob":true}"#)
        // Toggle alice's star off again.
        let (committedC, afterC) = try await alice.reference(withPath: "posts/\(key)").runTransactionBlock(
            toggleStar("alice"))
        #expect(committedC)
        #expect(afterC.childSnapshot(forPath: "starCount").value as? Int == 1)
        #expect(try await server.value(at: "posts/\(key)/starCount") == "1")

        // An aborted transaction commits nothing and reports no error; it saw the value the
        // client knows (kept by an observer).
        let starCount = EventLog<Int>()
        let watching = alice.reference(withPath: "posts/\(key)/starCount").observe(.value) { snapshot in
            starCount.append(snapshot.intValue ?? -1)
        }
        #expect(try await starCount.next() == 1)
        let (aborted, seen) = try await alice.reference(withPath: "posts/\(key)/starCount").runTransactionBlock { _ in
            .abort()
        }
        #expect(!aborted)
        #expect(seen.value as? Int == 1)
        alice.reference(withPath: "posts/\(key)/starCount").removeObserver(withHandle: watching)

        // Views counted with ServerValue.increment from both clients.
        try await alice.reference(withPath: "posts/\(key)/views").setValue(ServerValue.increment(1))
        try await bob.reference(withPath: "posts/\(key)/views").setValue(ServerValue.increment(2))
        try await alice.reference(withPath: "posts/\(key)").updateChildValues(["views": ServerValue.increment(0.5)])
        #expect(try await server.value(at: "posts/\(key)/views") == "3.5")

        // A server timestamp.
        try await alice.reference(withPath: "posts/\(key)/editedAt").setValue(ServerValue.timestamp())
        let editedAt = try await bob.reference(withPath: "posts/\(key)/editedAt").getData()
        let ms = try #require(editedAt.value as? Int64)
        #expect(abs(Double(ms) / 1000 - Date().timeIntervalSince1970) < 600)

        // Removing.
        try await root.child("user-posts/alice/\(key)").removeValue()
        #expect(try await server.value(at: "user-posts/alice") == "null")
    }
}
