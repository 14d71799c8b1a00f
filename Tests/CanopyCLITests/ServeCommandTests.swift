import CanopyTree
import Foundation
import Testing

/// End-to-end tests of the `canopy` executable: a real `canopy serve` process on a temporary
/// data directory, driven by the client commands.
@Suite struct ServeCommandTests {
    /// Parses JSON text into a node, for comparisons that ignore formatting and member order.
    private func json(_ text: String) throws -> Node {
        try Node(json: JSONParser.parse(text))
    }

    @Test(arguments: ["sqlite", "json"])
    func dataCommandsReadAndWrite(backend: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ServerProcess(data: directory.url.appendingPathComponent("data"), backend: backend)

        let set = try await CanopyProcess.run(["set", server.url("/users/ada"), #"{"name":"Ada","born":1815}"#])
        #expect(set.status == 0, "\(set.errors)")
        #expect(try json(set.text) == json(#"{"born":1815,"name":"Ada"}"#))

        let update = try await CanopyProcess.run([
            "update", server.url("/users/ada"), #"{"born":1816,"title":"Countess"}"#,
        ])
        #expect(update.status == 0, "\(update.errors)")

        let push = try await CanopyProcess.run(["push", server.url("/log"), "-"], input: #""started""#)
        #expect(push.status == 0, "\(push.errors)")
        guard case .object(let pushed) = try JSONParser.parse(push.text), case .string(let key)? = pushed.first?.value
        else {
            Issue.record("push printed \(push.output)")
            return
        }

        let get = try await CanopyProcess.run(["get", server.url("/")])
        #expect(get.status == 0, "\(get.errors)")
        #expect(
            try json(get.text)
                == json(#"{"log":{"\#(key)":"started"},"users":{"ada":{"born":1816,"name":"Ada","title":"Countess"}}}"#)
        )

        let remove = try await CanopyProcess.run(["remove", server.url("/log")])
        #expect(remove.status == 0, "\(remove.errors)")
        #expect(remove.text == "null")
        let after = try await CanopyProcess.run(["get", server.url("/log")])
        #expect(after.text == "null")

        // Another namespace is separate; a NAME.localhost host names the namespace.
        let other = try await CanopyProcess.run(["get", server.url("/users", namespace: "other")])
        #expect(other.text == "null")
        let port = server.base.split(separator: ":").last.map(String.init) ?? ""
        let byHost = try await CanopyProcess.run(["get", "http://test.localhost:\(port)/users/ada/name"])
        #expect(byHost.text == #""Ada""#, "\(byHost.errors)")

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.timedOut, "\(stopped.errors)")
    }

    @Test(arguments: ["sqlite", "json"])
    func exportThenImportKeepsPriorities(backend: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ServerProcess(data: directory.url.appendingPathComponent("data"), backend: backend)
        let tree = #"{"a":{".priority":1,"x":{".value":"one",".priority":"p"}},"b":[1,2,3]}"#
        #expect(try await CanopyProcess.run(["set", server.url("/"), tree]).status == 0)

        let file = directory.url.appendingPathComponent("export.json")
        let export = try await CanopyProcess.run(["export", server.url("/"), file.path])
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.output.isEmpty)
        let exportText = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        let exported = try json(exportText)
        #expect(exported == (try json(tree)))
        #expect(exported.child(ChildKey("a")).priority == .int(1))
        #expect(exportText.contains(#"".priority":"p""#), "\(exportText)")

        let toStandardOutput = try await CanopyProcess.run(["export", server.url("/")])
        #expect(try json(toStandardOutput.text) == exported)

        let imported = try await CanopyProcess.run(["import", server.url("/", namespace: "copy"), file.path])
        #expect(imported.status == 0, "\(imported.errors)")
        let copy = try await CanopyProcess.run(["export", server.url("/", namespace: "copy")])
        #expect(try json(copy.text) == exported)
        #expect(!imported.errors.contains("\r"), "no progress bar when standard error is not a terminal")

        let stopped = await server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    @Test func listenPrintsPutThenPatch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ServerProcess(data: directory.url.appendingPathComponent("data"))
        #expect(try await CanopyProcess.run(["set", server.url("/room"), #"{"topic":"hi"}"#]).status == 0)

        let listen = try CanopyProcess(["listen", server.url("/room")])
        let first = await listen.lines(atLeast: 1)
        #expect(try first.first.map(json) == json(#"{"event":"put","path":"/","data":{"topic":"hi"}}"#))

        #expect(try await CanopyProcess.run(["set", server.url("/room/topic"), #""news""#]).status == 0)
        #expect(try await CanopyProcess.run(["update", server.url("/room"), #"{"a/b":1,"c":true}"#]).status == 0)
        let lines = await listen.lines(atLeast: 3)
        #expect(lines.count >= 3, "listen printed \(lines); errors: \(listen.errorsSoFar)")
        if lines.count >= 3 {
            #expect(try json(lines[1]) == json(#"{"event":"put","path":"/topic","data":"news"}"#))
            #expect(try json(lines[2]) == json(#"{"event":"patch","path":"/","data":{"a/b":1,"c":true}}"#))
        }

        let metrics = try await server.fetch("/metrics")
        #expect(metrics.body.contains("canopy_connections{kind=\"event_stream\"} 1"), "\(metrics.body)")
        #expect(metrics.body.contains("canopy_listens 1"), "\(metrics.body)")

        // The server going away ends the stream; listen reports it and fails.
        let stopped = await server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
        let ended = await listen.finish()
        #expect(ended.status == 1 && !ended.timedOut)
    }

    @Test func healthAndMetrics() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ServerProcess(data: directory.url.appendingPathComponent("data"))
        let health = try await server.fetch("/healthz")
        #expect(health.status == 200)
        #expect(health.body == "ok\n")

        for value in 1...3 {
            #expect(try await CanopyProcess.run(["set", server.url("/n/\(value)"), "\(value)"]).status == 0)
        }
        _ = try await CanopyProcess.run(["get", server.url("/bad..key")])
        let metrics = try await server.fetch("/metrics")
        #expect(metrics.status == 200)
        let samples = Dictionary(
            metrics.body.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> (String, String)? in
                let parts = line.split(separator: " ")
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        #expect(samples["canopy_writes_total"] == "3")
        #expect(samples["canopy_http_errors_total"] == "1")
        #expect(samples["canopy_store_leaves{namespace=\"test\"}"] == "3")
        #expect(samples["canopy_connections{kind=\"websocket\"}"] == "0")
        for name in [
            "canopy_connections_total", "canopy_listens", "canopy_writes_per_second", "canopy_received_bytes_total",
            "canopy_sent_bytes_total", "canopy_http_requests_total", "canopy_store_bytes{namespace=\"test\"}",
        ] {
            #expect(samples[name] != nil, "\(name) missing from \(metrics.body)")
        }
        #expect(Int(samples["canopy_received_bytes_total"] ?? "") ?? 0 >= 3)
        #expect(metrics.body.contains("# TYPE canopy_writes_total counter"))
        _ = await server.stop()
    }

    @Test(arguments: ["sqlite", "json"])
    func sigtermExitsZeroAndDataPersists(backend: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.url.appendingPathComponent("data")
        let first = try await ServerProcess(data: data, backend: backend)
        #expect(try await CanopyProcess.run(["set", first.url("/kept"), #"{"v":[1,2]}"#]).status == 0)
        let stopped = await first.stop()
        #expect(stopped.status == 0 && !stopped.timedOut, "\(stopped.errors)")
        #expect(stopped.errors.contains("SIGTERM: shutting down"))

        let second = try await ServerProcess(data: data, backend: backend)
        let get = try await CanopyProcess.run(["get", second.url("/kept")])
        #expect(try json(get.text) == json(#"{"v":[1,2]}"#), "\(get.errors)")
        second.process.send(SIGINT)
        let interrupted = await second.process.finish()
        #expect(interrupted.status == 0, "\(interrupted.errors)")
    }

    @Test func secondServerOnTheSameDirectoryIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.url.appendingPathComponent("data")
        let first = try await ServerProcess(data: data)
        let second = try await CanopyProcess.run(["serve", "--port", "0", "--data", data.path])
        #expect(second.status == 1)
        #expect(second.errors.contains("another canopy serve is using the data directory"), "\(second.errors)")
        let stopped = await first.stop()
        #expect(stopped.status == 0)
    }

    @Test func usageAndFailureExitCodes() async throws {
        let unknown = try await CanopyProcess.run(["serve", "--frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("unknown option --frobnicate"))

        let rules = try await CanopyProcess.run(["serve", "--rules", "rules.json"])
        #expect(rules.status == 2)
        #expect(rules.errors.contains("not supported yet"))

        let open = try await CanopyProcess.run(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(open.status == 2)
        #expect(open.errors.contains("--allow-open"))

        let badPort = try await CanopyProcess.run(["serve", "--port", "http"])
        #expect(badPort.status == 2)

        let badJSON = try await CanopyProcess.run(["set", "http://127.0.0.1:9/x", "{nope"])
        #expect(badJSON.status == 2)
        #expect(badJSON.errors.contains("not valid JSON"))

        let badURL = try await CanopyProcess.run(["get", "not a url"])
        #expect(badURL.status == 2)

        let unreachable = try await CanopyProcess.run(["get", "http://127.0.0.1:9/x"])
        #expect(unreachable.status == 1)
        #expect(unreachable.errors.contains("cannot reach"))

        let help = try await CanopyProcess.run(["get", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("usage: canopy get"))

        let nothing = try await CanopyProcess.run([])
        #expect(nothing.status == 2)
    }

    @Test func serverErrorsExitOneWithTheMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ServerProcess(data: directory.url.appendingPathComponent("data"))
        let bad = try await CanopyProcess.run(["set", server.url("/a/.info"), "1"])
        #expect(bad.status == 1)
        #expect(bad.errors.contains("the server answered"), "\(bad.errors)")
        let badNamespace = try await CanopyProcess.run(["get", server.url("/", namespace: "no.dots")])
        #expect(badNamespace.status == 1, "\(badNamespace.output)")
        #expect(
            !FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("data/no.dots.sqlite").path))
        _ = await server.stop()
    }
}
