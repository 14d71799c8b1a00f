import Canopy
import CanopyScenarios
import Foundation
import Synchronization
import Testing

/// Broken input sent to a `canopy serve` process by raw clients: each gets an error response
/// or a clean close, while a healthy client keeps working and earlier data stays intact.
@Suite struct MalformedInputEndToEndTests {
    /// A well-behaved client that writes a counter and watches it.
    private final class HealthyClient: Sendable {
        let server: ServeProcess
        let database: Database
        let counts = EventLog<Int>()
        private let written = Mutex([0])

        /// Every count written, in order (starting with the initial 0).
        var history: [Int] { written.withLock { $0 } }

        init(server: ServeProcess) async throws {
            self.server = server
            database = server.database()
            try await database.reference(withPath: "intact").setValue(["a": 1, "b": ["c": "deep"]])
            try await database.reference(withPath: "healthy").setValue(0)
            let counts = self.counts
            database.reference(withPath: "healthy").observe(.value) { counts.append($0.intValue ?? -1) }
            #expect(try await counts.first(within: 30) { $0 == 0 } == 0)
        }

        /// Writes the next count, sees it come back, and checks the earlier data.
        func check(_ count: Int, after what: String) async throws {
            try await database.reference(withPath: "healthy").setValue(count)
            written.withLock { $0.append(count) }
            #expect(try await counts.first(within: 30, "count \(count) after \(what)") { $0 == count } == count)
            #expect(try await server.value(at: "intact") == #"{"a":1,"b":{"c":"deep"}}"#, "after \(what)")
        }
    }

    /// The JSON object of a data message's response body (`{"s": …, "d": …}`).
    private func responseBody(_ text: String) throws -> [String: Any] {
        let message = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let data = message?["d"] as? [String: Any]
        return try #require(data?["b"] as? [String: Any], "not a response: \(text)")
    }

    /// Opens a raw websocket and reads past the hello.
    private func rawSocket(_ server: ServeProcess) async throws -> RawWebSocket {
        let socket = try await RawWebSocket.open(port: server.port, namespace: server.namespace)
        guard case .text(let hello) = try await socket.receive(), hello.contains(#""t":"h""#) else {
            throw TestTimeout(description: "no hello")
        }
        return socket
    }

    @Test func websocketGarbage() async throws {
        let server = try await ServeProcess(namespace: "garbage")
        let healthy = try await HealthyClient(server: server)

        // Requests the server answers with an error, keeping the connection.
        let socket = try await rawSocket(server)
        try await socket.send(text: #"{"t":"d","d":{"r":1,"a":"bogus","b":{}}}"#)
        let unknown = try responseBody(try await socket.receiveData())
        #expect(unknown["s"] as? String != "ok", "unknown action: \(unknown)")
        #expect(unknown["d"] is String, "unknown action: \(unknown)")
        try await socket.send(text: #"{"t":"d","d":{"r":2,"a":"p","b":{"p":"/a/.b[","d":1}}}"#)
        let badPath = try responseBody(try await socket.receiveData())
        #expect(badPath["s"] as? String != "ok", "bad path: \(badPath)")
        try await socket.send(text: #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/x\u0001y","h":""}}}"#)
        let badListen = try responseBody(try await socket.receiveData())
        #expect(badListen["s"] as? String != "ok", "bad listen path: \(badListen)")
        try await socket.send(text: #"{"t":"d","d":{"r":4,"a":"p","b":{"p":"/raw","d":"fine"}}}"#)
        #expect(try responseBody(try await socket.receiveData())["s"] as? String == "ok")
        try await healthy.check(1, after: "error responses")
        #expect(try await server.value(at: "raw") == #""fine""#)

        // Known actions with malformed bodies: an error response, or an error message and a
        // close — never success.
        let malformed = [
            #"{"t":"d","d":{"r":1,"a":"p","b":{"d":1}}}"#,
            #"{"t":"d","d":{"r":1,"a":"p","b":{"p":5,"d":1}}}"#,
            #"{"t":"d","d":{"r":1,"a":"m","b":{"p":"/x","d":5}}}"#,
            #"{"t":"d","d":{"r":1,"a":"m","b":{"p":"/x","d":{"a/.b":1}}}}"#,
            #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/x","h":"","q":{"l":-1,"vf":"l"},"t":1}}}"#,
            #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/x","h":"","q":{"i":"$bogus$"},"t":2}}}"#,
            #"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/x","q":"nope"}}}"#,
            #"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/x/.info","d":1}}}"#,
            #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/deep","d":{".sv":"bogus"}}}}"#,
            #"{"t":"d","d":{"r":"one","a":"p","b":{"p":"/x","d":1}}}"#,
            #"{"t":"d","d":{"a":"p","b":{"p":"/x","d":1}}}"#,
        ]
        for (index, text) in malformed.enumerated() {
            let socket = try await rawSocket(server)
            try await socket.send(text: text)
            let reply = try await withDeadline(30, "an answer to \(text)") { try await socket.receiveSkippingPushes() }
            switch reply {
            case .text(let answer) where answer.hasPrefix(#"{"t":"d""#):
                let body = try responseBody(answer)
                #expect(body["s"] as? String != "ok", "\(text) → \(answer)")
                #expect(body["d"] is String, "\(text) → \(answer)")
            case .text(let answer):
                #expect(answer.hasPrefix(#"{"t":"c","d":{"t":"e""#), "\(text) → \(answer)")
                _ = try await withDeadline(30, "a close after \(text)") { try await socket.receiveEnd() }
            default:
                Issue.record("\(text) → \(reply) without an error message")
            }
            socket.close()
            try await healthy.check(40 + index, after: text)
        }
        #expect(try await server.value(at: "x") == "null")
        #expect(try await server.value(at: "deep") == "null")

        // Frames the server cannot read: an error message (`{"t":"c","d":{"t":"e",…}}`) and
        // a close.
        let unreadable: [(String, [UInt8])] = [
            ("a non-JSON text frame", RawWebSocket.frame(payload: Array("hello {".utf8))),
            ("a JSON array", RawWebSocket.frame(payload: Array("[1,2]".utf8))),
            ("an envelope without a type", RawWebSocket.frame(payload: Array(#"{"d":{}}"#.utf8))),
            ("a chunk count over the limit", RawWebSocket.frame(payload: Array("99999".utf8))),
            ("invalid UTF-8", RawWebSocket.frame(payload: [0x7b, 0xff, 0xfe, 0x7d])),
        ]
        for (index, (what, frame)) in unreadable.enumerated() {
            let socket = try await rawSocket(server)
            try await socket.send(bytes: frame)
            let (texts, end) = try await withDeadline(30, "the server to close after \(what)") {
                try await socket.receiveEnd()
            }
            #expect(texts.contains { $0.hasPrefix(#"{"t":"c","d":{"t":"e""#) }, "\(what): \(texts) \(end)")
            socket.close()
            try await healthy.check(2 + index, after: what)
        }

        // A binary frame is not part of the protocol: the server closes the connection.
        let binary = try await rawSocket(server)
        try await binary.send(bytes: RawWebSocket.frame(opcode: 2, payload: [1, 2, 3]))
        _ = try await withDeadline(30, "the server to close after a binary frame") {
            try await binary.receiveEnd()
        }
        binary.close()
        try await healthy.check(8, after: "a binary frame")

        // Half-frames: the connection ends in the middle of a message.
        let halves: [(String, [UInt8])] = [
            ("a chunk count and nothing more", RawWebSocket.frame(payload: Array("3".utf8))),
            (
                "a chunk count and one chunk",
                RawWebSocket.frame(payload: Array("2".utf8))
                    + RawWebSocket.frame(payload: Array(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/half","#.utf8))
            ),
            ("a truncated frame", Array(RawWebSocket.frame(payload: Array(#"{"t":"d","d":{"r":1}}"#.utf8)).prefix(9))),
            // (The server waits for the payload until the message limit, 256 MB, is reached.)
            (
                "a frame announcing 1 TB",
                RawWebSocket.frame(payload: Array(repeating: 0x20, count: 70_000), declaredLength: 1 << 40)
            ),
            ("a fragment without its end", RawWebSocket.frame(final: false, payload: Array(#"{"t":"d","#.utf8))),
        ]
        for (index, (what, bytes)) in halves.enumerated() {
            let socket = try await rawSocket(server)
            try await socket.send(bytes: bytes)
            socket.close()
            try await healthy.check(10 + index, after: what)
        }
        #expect(try await server.value(at: "half") == "null")

        // A large message split into chunks as the protocol allows, then an oversized frame.
        let big = String(repeating: "x", count: 40_000)
        let message = Array(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/big","d":"\#(big)"}}}"#.utf8)
        let chunks = stride(from: 0, to: message.count, by: 16384).map {
            RawWebSocket.frame(payload: Array(message[$0..<min(message.count, $0 + 16384)]))
        }
        let splitter = try await rawSocket(server)
        try await splitter.send(bytes: RawWebSocket.frame(payload: Array("\(chunks.count)".utf8)) + chunks.joined())
        #expect(try responseBody(try await splitter.receiveData())["s"] as? String == "ok")
        #expect(try await server.value(at: "big") == "\"\(big)\"")
        splitter.close()
        try await healthy.check(20, after: "a split message")

        #expect(try await server.value(at: "healthy") == "20")
        healthy.database.goOffline()
        await server.stop()
    }

    @Test func restGarbage() async throws {
        let server = try await ServeProcess(namespace: "rest")
        let healthy = try await HealthyClient(server: server)
        let ns = "ns=\(server.namespace)"
        // A Server-Sent Events client watches the counter throughout.
        let stream = try await RawSocket.connect(port: server.port)
        try await stream.write(
            Array("GET /healthy.json?\(ns) HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".utf8))
        let cases: [(String, String, String, [UInt8]?)] = [
            ("invalid JSON", "PUT", "/intact.json?\(ns)", Array(#"{"a":"#.utf8)),
            ("trailing garbage", "PUT", "/intact.json?\(ns)", Array(#"{"a":1} x"#.utf8)),
            ("invalid UTF-8", "PATCH", "/intact.json?\(ns)", [0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
            ("a merge that is not an object", "PATCH", "/intact.json?\(ns)", Array("[1]".utf8)),
            ("an empty body", "POST", "/intact.json?\(ns)", []),
            ("a key with a dot", "GET", "/intact/.b.json?\(ns)", nil),
            ("a key with a bracket", "PUT", "/intact/a[.json?\(ns)", Array("1".utf8)),
            ("an invalid key in the data", "PUT", "/intact.json?\(ns)", Array(#"{"a$":1}"#.utf8)),
            ("a bad query parameter", "GET", "/intact.json?\(ns)&orderBy=nonsense", nil),
            ("a bad limit", "GET", "/intact.json?\(ns)&orderBy=%22$key%22&limitToFirst=-3", nil),
        ]
        for (index, (what, method, target, body)) in cases.enumerated() {
            let response = try await RawSocket.http(port: server.port, method: method, target: target, body: body)
            #expect(response.status == 400, "\(what): \(response.status) \(response.bodyText)")
            let error = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
            #expect(error?["error"] is String, "\(what): \(response.bodyText)")
            try await healthy.check(1 + index, after: what)
        }

        // A body over writeSizeLimit (tiny: 1 MB).
        let tiny = try await RawSocket.http(
            port: server.port, method: "PUT", target: "/intact.json?\(ns)&writeSizeLimit=tiny",
            body: Array(#"{"x":"\#(String(repeating: "y", count: 1_100_000))"}"#.utf8))
        #expect(tiny.status == 413, "writeSizeLimit=tiny: \(tiny.status) \(tiny.bodyText)")
        try await healthy.check(19, after: "a body over writeSizeLimit")

        // A bad percent escape is refused by libwebsockets before the REST handler sees it
        // (403 with an HTML body).
        let escape = try await RawSocket.http(port: server.port, method: "GET", target: "/intact/%zz.json?\(ns)")
        #expect((400..<500).contains(escape.status), "bad percent escape: \(escape.status) \(escape.bodyText)")
        try await healthy.check(20, after: "a bad percent escape")

        // A request that is not HTTP at all, and one cut off in its body.
        let junk = try await RawSocket.connect(port: server.port)
        try await junk.write(Array("\u{1}\u{2}garbage\r\n\r\n".utf8))
        _ = try await junk.readToEnd()
        junk.close()
        try await healthy.check(30, after: "a request that is not HTTP")
        let cut = try await RawSocket.connect(port: server.port)
        try await cut.write(
            Array("PUT /intact.json?\(ns) HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":".utf8))
        cut.close()
        try await healthy.check(31, after: "a body cut off")

        // The event stream saw every count, in order.
        var received = ""
        while !received.contains(#""data":31}"#) {
            let chunk = try await stream.read()
            guard !chunk.isEmpty else { throw TestTimeout(description: "the event stream ended: \(received)") }
            received += String(decoding: chunk, as: UTF8.self)
        }
        stream.close()
        let puts = received.components(separatedBy: "\n").filter { $0.hasPrefix("data: {") }.compactMap { line in
            let event = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            return event?["data"] as? Int
        }
        #expect(puts == healthy.history)
        healthy.database.goOffline()
        await server.stop()
    }
}
