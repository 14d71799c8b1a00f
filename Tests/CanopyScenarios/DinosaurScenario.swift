import Canopy
import Testing

/// The dinosaur-scores sample: the top three of `scores` by value
/// (`queryOrderedByValue().queryLimited(toLast:)`) followed through child events while
/// another client writes, then ranged and exact queries.
public enum DinosaurScenario {
    /// The scores the scenario starts from.
    public static var scores: [String: Any] {
        [
            "bruhathkayosaurus": 55, "lambeosaurus": 21, "linhenykus": 80, "pterodactyl": 93, "stegosaurus": 5,
            "triceratops": 22,
        ]
    }

    /// Runs the scenario against `server` with a writer and a reader.
    public static func run(on server: some ScenarioServer) async throws {
        let writer = server.database()
        try await writer.reference(withPath: "scores").setValue(Self.scores)

        let reader = server.database()
        let top = reader.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 3)
        let log = EventLog<String>()
        top.observe(
            .childAdded,
            andPreviousSiblingKeyWith: { snapshot, previous in
                log.append("added \(snapshot.key)=\(snapshot.value as? Int ?? -1) after \(previous ?? "-")")
            })
        top.observe(.childRemoved) { snapshot in log.append("removed \(snapshot.key)") }
        top.observe(
            .childMoved,
            andPreviousSiblingKeyWith: { snapshot, previous in
                log.append("moved \(snapshot.key) after \(previous ?? "-")")
            })
        top.observe(.childChanged) { snapshot in log.append("changed \(snapshot.key)=\(snapshot.value as? Int ?? -1)") }
        #expect(
            try await log.next(3) == [
                "added bruhathkayosaurus=55 after -", "added linhenykus=80 after bruhathkayosaurus",
                "added pterodactyl=93 after linhenykus",
            ])

        // A new high score enters, the lowest of the three leaves.
        try await writer.reference(withPath: "scores/stegosaurus").setValue(100)
        #expect(try await log.next(2) == ["removed bruhathkayosaurus", "added stegosaurus=100 after pterodactyl"])

        // A score inside the window changes and moves.
        try await writer.reference(withPath: "scores/linhenykus").setValue(99)
        #expect(try await log.next(2) == ["moved linhenykus after pterodactyl", "changed linhenykus=99"])

        // The value of the query lists the window in order.
        let snapshot = try await top.observeSingleEvent(of: .value)
        #expect(snapshot.children.map(\.key) == ["pterodactyl", "linhenykus", "stegosaurus"])
        let first = try await reader.reference(withPath: "scores").queryOrderedByValue().queryLimited(toFirst: 2)
            .getData()
        #expect(first.children.map(\.key) == ["lambeosaurus", "triceratops"])
        let range = try await reader.reference(withPath: "scores").queryOrderedByValue()
            .queryStarting(afterValue: 21).queryEnding(beforeValue: 93).getData()
        #expect(range.children.map(\.key) == ["triceratops", "bruhathkayosaurus"])
        let exact = try await reader.reference(withPath: "scores").queryOrderedByKey()
            .queryEqual(toValue: "lambeosaurus").getData()
        #expect(exact.value as? [String: Int] == ["lambeosaurus": 21])
    }
}
