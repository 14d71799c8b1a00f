import Canopy
import CanopyScenarios
import CanopyTestSupport
import CanopyWebSocket
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `canopy serve` process on 127.0.0.1 with its own data directory, and clients of one of
/// its namespaces connected over real websockets — `wss://` when it serves a certificate.
final class ServeProcess: ScenarioServer {
    /// The port it listens on (kept across restarts).
    let port: Int
    /// The data directory (kept across restarts).
    let dataDirectory: URL
    /// The namespace ``database()`` and ``value(at:)`` use.
    let namespace: String
    /// The certificate it serves `https://` and `wss://` with (nil: plain text), which its
    /// clients trust as their authority.
    let certificate: SelfSignedCertificate?
    private let backend: String
    private let current: Mutex<ChildProcess>

    /// The line `canopy serve` prints when ready, up to the port.
    private var listeningPrefix: String { "canopy serve: listening on \(scheme)://127.0.0.1:" }

    /// `https` with a certificate, else `http`.
    var scheme: String { certificate == nil ? "http" : "https" }

    /// Starts `canopy serve --port 0` on a new data directory (with `--tls-cert` and
    /// `--tls-key` when `certificate` is given) and waits until it listens.
    init(namespace: String = "e2e", backend: String = "sqlite", certificate: SelfSignedCertificate? = nil)
        async throws
    {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("canopy-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let prefix = "canopy serve: listening on \(certificate == nil ? "http" : "https")://127.0.0.1:"
        let child: ChildProcess
        let port: Int
        do {
            child = try Self.launch(port: 0, data: directory, backend: backend, certificate: certificate)
            let line = try await child.line(startingWith: prefix)
            guard let number = Int(line.dropFirst(prefix.count)) else {
                child.send(signal: SIGKILL)
                throw TestTimeout(description: "unexpected listening line: \(line)")
            }
            port = number
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        self.port = port
        self.dataDirectory = directory
        self.namespace = namespace
        self.backend = backend
        self.certificate = certificate
        self.current = Mutex(child)
    }

    /// The URL clients of ``namespace`` use.
    var url: String { "\(scheme)://127.0.0.1:\(port)?ns=\(namespace)" }

    /// How clients verify the server: trusting ``certificate`` besides the system store.
    var clientTLS: WebSocketTLSOptions { WebSocketTLSOptions(customCAFile: certificate?.certificateFile) }

    /// A new, independent client of ``namespace`` over websockets.
    func database() -> Database {
        Database(
            url: url, transportFactory: WebSocketClientTransportFactory(configuration: .init(tls: clientTLS)))
    }

    /// The data at `path` read over REST, as compact JSON in export form.
    func value(at path: String) async throws -> String {
        if certificate != nil {
            let request = try HTTPClientRequest(
                method: "GET", url: "https://127.0.0.1:\(port)/\(path).json?ns=\(namespace)&format=export",
                tls: clientTLS, idleTimeoutSeconds: 30)
            var status = 0
            var body: [UInt8] = []
            for try await event in request.start() {
                switch event {
                case .response(let code, _): status = code
                case .data(let bytes): body += bytes
                case .sent: break
                }
            }
            let text = String(decoding: body, as: UTF8.self)
            guard status == 200 else { throw TestTimeout(description: "GET /\(path): \(status) \(text)") }
            return text
        }
        let response = try await RawSocket.http(
            port: port, method: "GET", target: "/\(path).json?ns=\(namespace)&format=export")
        guard response.status == 200 else {
            throw TestTimeout(description: "GET /\(path): \(response.status) \(response.bodyText)")
        }
        return response.bodyText
    }

    /// Stops the server with SIGTERM; answers its exit status.
    @discardableResult
    func terminate() async throws -> Int32 {
        let child = current.withLock { $0 }
        child.send(signal: SIGTERM)
        return try await child.exitStatus()
    }

    /// Kills the server with SIGKILL (no shutdown) and waits for it to be gone.
    func kill() async throws {
        let child = current.withLock { $0 }
        child.send(signal: SIGKILL)
        try await child.exitStatus()
    }

    /// Starts the server again on the same port and data directory (after ``terminate()``).
    func restart() async throws {
        let child = try Self.launch(port: port, data: dataDirectory, backend: backend, certificate: certificate)
        _ = try await child.line(startingWith: listeningPrefix)
        current.withLock { $0 = child }
    }

    /// What the running server printed on standard error (its log).
    var log: String { current.withLock { $0 }.standardError }

    /// Stops the server (SIGKILL if SIGTERM is not enough); the data directory goes with the
    /// last reference.
    func stop() async {
        let child = current.withLock { $0 }
        child.send(signal: SIGTERM)
        if (try? await child.exitStatus(within: 10)) == nil { child.send(signal: SIGKILL) }
    }

    deinit {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    private static func launch(port: Int, data: URL, backend: String, certificate: SelfSignedCertificate?) throws
        -> ChildProcess
    {
        var arguments = [
            "serve", "--host", "127.0.0.1", "--port", "\(port)", "--data", data.path, "--backend", backend,
        ]
        if let certificate {
            arguments += ["--tls-cert", certificate.certificateFile, "--tls-key", certificate.privateKeyFile]
        }
        return try ChildProcess("canopy", override: "CANOPY_BINARY", arguments: arguments)
    }
}
