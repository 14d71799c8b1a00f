// Measures CanopyTree's JSON parser and serializer against Foundation's JSONSerialization
// on the same ~10 MB document in one run, and prints throughput, ratios and whether the
// targets (parse ≥ 3×, serialize ≥ 10× Foundation) are met. Throughput is in megabytes of the
// document's compact serialization per second, for both sides.
//
// Run with: swift run -c release CanopyJSONBenchmark

import CanopyBenchmarkSupport
import CanopyTree
import Foundation

/// Builds a realistic document: users with profiles, posts and comments.
struct DocumentGenerator {
    var random = SplitMix64(seed: 20_261_129)

    static let words = [
        "tree", "canopy", "sync", "offline", "listen", "query", "snapshot", "value", "write",
        "server", "client", "cache", "priority", "index", "realtime", "database", "Zürich",
        "naïve", "café", "東京", "données", "προσοχή", "😀", "🌲", "réseau", "Straße", "über",
        "the", "a", "of", "and", "with", "quickly", "jumps", "over", "lazy", "fox",
    ]
    static let cities = ["Zürich", "São Paulo", "Kraków", "Reykjavík", "東京", "New York", "Berlin", "Montréal"]
    static let tags = ["swift", "linux", "json", "perf", "db", "ios", "server", "tips", "news", "misc"]

    mutating func sentence(words count: Int) -> String {
        var parts: [String] = []
        for _ in 0..<count {
            var word = random.pick(Self.words)
            switch random.below(40) {
            case 0: word = "\"\(word)\""
            case 1: word += "\n"
            case 2: word += "\t"
            case 3: word = "C:\\\(word)"
            default: break
            }
            parts.append(word)
        }
        return parts.joined(separator: " ") + "."
    }

    mutating func comment(id: Int) -> JSONValue {
        .object([
            JSONMember("id", .int(Int64(id))),
            JSONMember("author", .string("user\(random.below(100_000))")),
            JSONMember("text", .string(sentence(words: 4 + random.below(12)))),
            JSONMember("likes", .int(Int64(random.below(500)))),
            JSONMember("created", .int(1_700_000_000_000 + Int64(random.below(100_000_000)))),
        ])
    }

    mutating func post(id: Int) -> JSONValue {
        let comments = (0..<random.below(4)).map { comment(id: id * 10 + $0) }
        return .object([
            JSONMember("id", .int(Int64(id))),
            JSONMember("title", .string(sentence(words: 3 + random.below(6)))),
            JSONMember("body", .string(sentence(words: 20 + random.below(60)))),
            JSONMember("likes", .int(Int64(random.below(10_000)))),
            JSONMember("ratio", .double((random.unit() * 1000).rounded() / 1000)),
            JSONMember("score", .double(random.unit() * 100)),
            JSONMember("published", .bool(random.below(4) != 0)),
            JSONMember("created", .int(1_600_000_000_000 + Int64(random.below(200_000_000_000)))),
            JSONMember("tags", .array((0..<random.below(5)).map { _ in .string(random.pick(Self.tags)) })),
            JSONMember("comments", .array(comments)),
        ])
    }

    mutating func user(id: Int) -> JSONValue {
        let posts = (0..<1 + random.below(6)).map { post(id: id * 100 + $0) }
        return .object([
            JSONMember("id", .int(Int64(id))),
            JSONMember(
                "name",
                .string(
                    "\(random.pick(["Ana", "Björn", "Chloé", "Dmitri", "Eun-ji", "Fatima", "Γιώργος"])) \(random.pick(["Smith", "Müller", "García", "Nakamura", "O'Brien", "Kowalski"]))"
                )),
            JSONMember("email", .string("user\(id)@example.com")),
            JSONMember("age", .int(Int64(18 + random.below(70)))),
            JSONMember("balance", .double((random.unit() * 1_000_000).rounded() / 100)),
            JSONMember("active", .bool(random.below(2) == 0)),
            JSONMember("manager", random.below(3) == 0 ? .null : .int(Int64(random.below(id + 1)))),
            JSONMember(
                "location",
                .object([
                    JSONMember("city", .string(random.pick(Self.cities))),
                    JSONMember("lat", .double(random.unit() * 180 - 90)),
                    JSONMember("lng", .double(random.unit() * 360 - 180)),
                ])),
            JSONMember("bio", .string(sentence(words: 5 + random.below(30)))),
            JSONMember("posts", .array(posts)),
        ])
    }

    /// Users are added until the compact serialization reaches `targetBytes`.
    mutating func document(targetBytes: Int) -> JSONValue {
        var users: [JSONValue] = []
        var size = 0
        while size < targetBytes {
            let next = user(id: users.count)
            size += next.serializedBytes().count + 1
            users.append(next)
        }
        return .object([
            JSONMember("version", .int(3)),
            JSONMember("generated", .string("2026-11-29T12:00:00Z")),
            JSONMember("users", .array(users)),
        ])
    }
}

/// The wall time of one run of `body`, in seconds. The result is released after the clock
/// stops, so deallocation is not measured (for either side).
func time<Result>(_ body: () throws -> Result) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let elapsed = clock.now - start
    withExtendedLifetime(result) {}
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// One result line: throughput of both sides for `megabytes` of JSON and their ratio.
func row(_ label: String, megabytes: Double, ours: Double, foundation: Double) -> String {
    let padded = label.padding(toLength: 22, withPad: " ", startingAt: 0)
    return padded
        + String(format: "%8.1f     %8.1f   %5.1f×", megabytes / ours, megabytes / foundation, foundation / ours)
}

let repetitions = 7
var generator = DocumentGenerator()
let document = generator.document(targetBytes: 10_000_000)
let bytes = document.serializedBytes()
let megabytes = Double(bytes.count) / 1_000_000
let data = Data(bytes)
print("document: \(bytes.count) bytes (\(String(format: "%.2f", megabytes)) MB), best of \(repetitions) runs")

// Correctness check before timing.
let reparsed = try JSONParser.parse(bytes)
guard reparsed == document, reparsed.serializedBytes() == bytes else {
    print("FAIL: round trip through CanopyTree changed the document")
    exit(1)
}
let foundationObject = try JSONSerialization.jsonObject(with: data)

// Ours and Foundation's runs alternate so that load from other processes affects both alike;
// the best run of each is kept.
var ourParse = Double.infinity
var foundationParse = Double.infinity
var ourSerialize = Double.infinity
var foundationSerialize = Double.infinity
for _ in 0..<repetitions {
    ourParse = min(ourParse, try time { try JSONParser.parse(bytes) })
    foundationParse = min(foundationParse, try time { try JSONSerialization.jsonObject(with: data) })
    ourSerialize = min(ourSerialize, time { document.serializedBytes() })
    foundationSerialize = min(
        foundationSerialize, try time { try JSONSerialization.data(withJSONObject: foundationObject) })
}

let parseRatio = foundationParse / ourParse
let serializeRatio = foundationSerialize / ourSerialize
print(String(repeating: " ", count: 22) + "  Canopy   Foundation   ratio")
print(row("parse      (MB/s)", megabytes: megabytes, ours: ourParse, foundation: foundationParse))
print(row("serialize  (MB/s)", megabytes: megabytes, ours: ourSerialize, foundation: foundationSerialize))
// Informational: many small documents, the shape of protocol frames (no target).
var frames: [[UInt8]] = []
for index in 0..<20_000 {
    let frame = JSONValue.object([
        JSONMember("t", .string("d")),
        JSONMember(
            "d",
            .object([
                JSONMember("r", .int(Int64(index))),
                JSONMember("a", .string("p")),
                JSONMember(
                    "b",
                    .object([
                        JSONMember("p", .string("/users/user\(index % 500)/posts/\(index)")),
                        JSONMember("d", generator.post(id: index)),
                        JSONMember("h", .string("m/gA365Q5OBo06Bg8wdybAAiMSQ=")),
                    ])),
            ])),
    ])
    frames.append(frame.serializedBytes())
}
let frameValues = try frames.map { try JSONParser.parse($0) }
let frameData = frames.map { Data($0) }
let frameObjects = try frameData.map { try JSONSerialization.jsonObject(with: $0) }
let frameMegabytes = Double(frames.reduce(0) { $0 + $1.count }) / 1_000_000
var ourFrameParse = Double.infinity
var foundationFrameParse = Double.infinity
var ourFrameSerialize = Double.infinity
var foundationFrameSerialize = Double.infinity
for _ in 0..<repetitions {
    ourFrameParse = min(ourFrameParse, try time { try frames.map { try JSONParser.parse($0) } })
    foundationFrameParse = min(
        foundationFrameParse, try time { try frameData.map { try JSONSerialization.jsonObject(with: $0) } })
    ourFrameSerialize = min(ourFrameSerialize, time { frameValues.map { $0.serializedBytes() } })
    foundationFrameSerialize = min(
        foundationFrameSerialize, try time { try frameObjects.map { try JSONSerialization.data(withJSONObject: $0) } })
}
let frameSize = frames.reduce(0) { $0 + $1.count } / frames.count
print("\(frames.count) frames of ~\(frameSize) bytes (informational):")
print(row("frame parse     (MB/s)", megabytes: frameMegabytes, ours: ourFrameParse, foundation: foundationFrameParse))
print(
    row(
        "frame serialize (MB/s)", megabytes: frameMegabytes, ours: ourFrameSerialize,
        foundation: foundationFrameSerialize))
print("target parse ≥ 3× Foundation:      \(parseRatio >= 3 ? "MET" : "NOT MET")")
print("target serialize ≥ 10× Foundation: \(serializeRatio >= 10 ? "MET" : "NOT MET")")
