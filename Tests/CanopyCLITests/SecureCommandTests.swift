import CanopyTestSupport
import CanopyTree
import Foundation
import Testing

/// The client commands against `canopy serve --tls-cert --tls-key` with a self-signed
/// certificate: trusted with `--cacert`, refused (with a message saying what to do) without.
@Suite struct SecureCommandTests {
    /// Starts a TLS server on a new data directory inside `directory`.
    private func secureServer(_ directory: TemporaryDirectory, _ certificate: SelfSignedCertificate) async throws
        -> ServerProcess
    {
        try await ServerProcess(
            data: directory.url.appendingPathComponent("data"),
            extra: ["--tls-cert", certificate.certificateFile, "--tls-key", certificate.privateKeyFile])
    }

    @Test func clientCommandsTrustTheAuthorityGivenWithCacert() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let server = try await secureServer(directory, certificate)
        #expect(server.base.hasPrefix("https://127.0.0.1:"))
        let trust = ["--cacert", certificate.certificateFile]

        let set = try await CanopyProcess.run(["set", server.url("/a.json"), "1"] + trust)
        #expect(set.status == 0, "\(set.errors)")
        #expect(set.text == "1")
        let get = try await CanopyProcess.run(["get", server.url("/a.json")] + trust)
        #expect(get.status == 0, "\(get.errors)")
        #expect(get.text == "1")
        let port = server.base.split(separator: ":").last.map(String.init) ?? ""
        let byName = try await CanopyProcess.run([
            "get", "https://localhost:\(port)/a?ns=test", "--cacert=\(certificate.certificateFile)",
        ])
        #expect(byName.text == "1", "\(byName.errors)")

        let update = try await CanopyProcess.run(["update", server.url("/b"), #"{"x":true}"#] + trust)
        #expect(update.status == 0, "\(update.errors)")
        let push = try await CanopyProcess.run(["push", server.url("/log"), #""entry""#] + trust)
        #expect(push.status == 0, "\(push.errors)")
        let remove = try await CanopyProcess.run(["remove", server.url("/log")] + trust)
        #expect(remove.text == "null", "\(remove.errors)")

        // Export and import through https.
        let file = directory.url.appendingPathComponent("export.json")
        let export = try await CanopyProcess.run(["export", server.url("/"), file.path] + trust)
        #expect(export.status == 0, "\(export.errors)")
        let imported = try await CanopyProcess.run(["import", server.url("/", namespace: "copy"), file.path] + trust)
        #expect(imported.status == 0, "\(imported.errors)")
        let copy = try await CanopyProcess.run(["get", server.url("/", namespace: "copy")] + trust)
        #expect(try Node(json: JSONParser.parse(copy.text)) == Node(json: JSONParser.parse(#"{"a":1,"b":{"x":true}}"#)))

        // An event stream over https.
        let listen = try CanopyProcess(["listen", server.url("/b")] + trust)
        let first = await listen.lines(atLeast: 1)
        #expect(first.first == #"{"event":"put","path":"/","data":{"x":true}}"#, "\(listen.errorsSoFar)")
        #expect(try await CanopyProcess.run(["set", server.url("/b/x"), "false"] + trust).status == 0)
        let lines = await listen.lines(atLeast: 2)
        #expect(lines.dropFirst().first == #"{"event":"put","path":"/x","data":false}"#, "\(listen.errorsSoFar)")

        let stopped = await server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
        let ended = await listen.finish()
        #expect(ended.status == 1 && !ended.timedOut)
    }

    @Test func untrustedServerFailsWithAMessageNamingCacert() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let stranger = try SelfSignedCertificate.make()
        defer { stranger.remove() }
        let server = try await secureServer(directory, certificate)

        let set = try await CanopyProcess.run(["set", server.url("/a"), "1"])
        #expect(set.status == 1 && !set.timedOut)
        #expect(set.errors.contains("cannot reach \(server.base)/a"), "\(set.errors)")
        #expect(set.errors.contains("self-signed certificate"), "\(set.errors)")
        #expect(set.errors.contains("pass --cacert FILE"), "\(set.errors)")
        #expect(set.output.isEmpty)

        let listen = try await CanopyProcess.run(["listen", server.url("/a")])
        #expect(listen.status == 1 && !listen.timedOut)
        #expect(listen.errors.contains("pass --cacert FILE"), "\(listen.errors)")

        // Another certificate as the authority does not vouch for this server.
        let wrong = try await CanopyProcess.run(["get", server.url("/a"), "--cacert", stranger.certificateFile])
        #expect(wrong.status == 1)
        #expect(wrong.errors.contains("certificate was refused"), "\(wrong.errors)")

        let missing = directory.url.appendingPathComponent("missing.pem").path
        let unreadable = try await CanopyProcess.run(["get", server.url("/a"), "--cacert", missing])
        #expect(unreadable.status == 1)
        #expect(unreadable.errors.contains("cannot read the certificate authority file \(missing)"))

        // Nothing was written by the refused commands.
        let get = try await CanopyProcess.run(["get", server.url("/a"), "--cacert", certificate.certificateFile])
        #expect(get.text == "null", "\(get.errors)")
        _ = await server.stop()
    }

    @Test func serveExplainsUnusableCertificateFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificate = try SelfSignedCertificate.make()
        defer { certificate.remove() }
        let other = try SelfSignedCertificate.make()
        defer { other.remove() }
        let data = directory.url.appendingPathComponent("data").path
        let mismatched = try await CanopyProcess.run([
            "serve", "--port", "0", "--data", data, "--tls-cert", certificate.certificateFile, "--tls-key",
            other.privateKeyFile,
        ])
        #expect(mismatched.status == 1 && !mismatched.timedOut)
        #expect(
            mismatched.errors.contains("cannot serve https with the certificate \(certificate.certificateFile)"),
            "\(mismatched.errors)")
        #expect(mismatched.errors.contains("key values mismatch"), "\(mismatched.errors)")

        let missing = try await CanopyProcess.run([
            "serve", "--port", "0", "--data", data, "--tls-cert", certificate.certificateFile,
        ])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("--tls-cert and --tls-key go together"))
    }

    @Test func everyClientCommandDocumentsCacert() async throws {
        for command in ["get", "set", "update", "push", "remove", "listen", "export", "import"] {
            let help = try await CanopyProcess.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("--cacert FILE"), "\(command): \(help.output)")
        }
    }
}
