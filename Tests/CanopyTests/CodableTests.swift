import Canopy
import CanopyWire
import Foundation
import Testing

struct Author: Codable, Equatable {
    var name: String
    var age: Int
}

struct Post: Codable, Equatable {
    var title: String
    var stars: Int
    var ratio: Double
    var published: Bool
    var tags: [String]
    var author: Author
    var editor: Author?
    var createdAt: Date
    @ServerTimestamp var updatedAt: Date?
}

@Suite struct CodableTests {
    @Test func encoderProducesDatabaseValues() throws {
        let post = Post(
            title: "Hello", stars: 3, ratio: 0.5, published: true, tags: ["a", "b"],
            author: Author(name: "Ann", age: 30), editor: nil,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.123))
        let value = try #require(try Database.Encoder().encode(post) as? [String: Any])
        #expect(value["title"] as? String == "Hello")
        #expect(value["stars"] as? Int == 3)
        #expect(value["published"] as? Bool == true)
        #expect(value["tags"] as? [String] == ["a", "b"])
        #expect((value["author"] as? [String: Any])?["age"] as? Int == 30)
        #expect(value["createdAt"] as? Int64 == 1_700_000_000_123)
        #expect(value["editor"] == nil)
        let placeholder = try #require(value["updatedAt"] as? [String: Any])
        #expect(placeholder[".sv"] as? String == "timestamp")
    }

    @Test func decoderReadsMillisecondsAndFlexibleContainers() throws {
        let decoder = Database.Decoder()
        let value: [String: Any] = [
            "title": "T", "stars": 2, "ratio": 1, "published": false, "tags": ["0": "x", "1": "y"],
            "author": ["name": "Bo", "age": 41], "createdAt": 1_000, "updatedAt": 2_000,
        ]
        let post = try decoder.decode(Post.self, from: value)
        #expect(post.tags == ["x", "y"])
        #expect(post.ratio == 1)
        #expect(post.editor == nil)
        #expect(post.createdAt == Date(timeIntervalSince1970: 1))
        #expect(post.updatedAt == Date(timeIntervalSince1970: 2))
        #expect(throws: DecodingError.self) { try decoder.decode(Author.self, from: ["name": "x", "age": 1.5]) }
        #expect(throws: DecodingError.self) { try decoder.decode(Author.self, from: ["name": "x"]) }
    }

    @Test func largeCollectionsRoundTrip() throws {
        var authors: [String: Author] = [:]
        for index in 0..<2_000 { authors["a\(index)"] = Author(name: "n\(index)", age: index) }
        let lists = (0..<50).map { row in (0..<40).map { row * 40 + $0 } }
        let encoded = try Database.Encoder().encode(authors)
        #expect((encoded as? [String: Any])?.count == 2_000)
        #expect(try Database.Decoder().decode([String: Author].self, from: encoded) == authors)
        let encodedLists = try Database.Encoder().encode(lists)
        #expect(try Database.Decoder().decode([[Int]].self, from: encodedLists) == lists)
    }

    @Test func encoderRejectsNonFiniteNumbers() {
        #expect(throws: EncodingError.self) { try Database.Encoder().encode(["x": Double.nan]) }
    }

    @Test func roundTripThroughLocalSnapshot() async throws {
        let database = Database(url: "loopback://nobody?ns=test", transportFactory: LoopbackNetwork())
        let ref = database.reference(withPath: "posts/1")
        let post = Post(
            title: "Round", stars: 1, ratio: 0.25, published: true, tags: ["t"],
            author: Author(name: "Cy", age: 5), editor: Author(name: "Di", age: 6),
            createdAt: Date(timeIntervalSince1970: 12.5))
        try ref.setValue(from: post) { _ in }
        let snapshot = try await ref.observeSingleEvent(of: .value)
        let decoded = try snapshot.data(as: Post.self)
        // The server timestamp placeholder resolved locally to the client's estimate.
        let updatedAt = try #require(decoded.updatedAt)
        #expect(abs(updatedAt.timeIntervalSinceNow) < 600)
        var expected = post
        expected.updatedAt = updatedAt
        #expect(decoded == expected)
        #expect(try snapshot.childSnapshot(forPath: "tags").data(as: [String].self) == ["t"])
        #expect(try snapshot.childSnapshot(forPath: "missing").data(as: Author?.self) == nil)
    }
}

@Suite struct CodableServerTests {
    @Test func roundTripThroughTheServer() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let writer = server.database()
        let post = Post(
            title: "Served", stars: 7, ratio: 0.75, published: false, tags: ["a", "b", "c"],
            author: Author(name: "Ed", age: 50), editor: nil, createdAt: Date(timeIntervalSince1970: 1_600_000_000))
        try await writer.reference(withPath: "posts/p").setValue(from: post)
        let stored = try await server.value(at: "posts/p/updatedAt")
        let serverMs = try #require(Int64(stored))
        let snapshot = try await server.database().reference(withPath: "posts/p").getData()
        let decoded = try snapshot.data(as: Post.self)
        #expect(decoded.updatedAt == Date(timeIntervalSince1970: Double(serverMs) / 1000))
        var expected = post
        expected.updatedAt = decoded.updatedAt
        #expect(decoded == expected)
        let authors = try await server.database().reference(withPath: "posts").getData()
        #expect(try authors.data(as: [String: Post].self)["p"]?.author == Author(name: "Ed", age: 50))
    }
}
