import CanopyServer
import CanopyWebSocket
import Foundation

/// `canopy serve`: a Canopy server on one port — websockets (official and Canopy clients),
/// the REST API with Server-Sent Events, `/healthz` and `/metrics` — holding one store per
/// namespace in a data directory.
///
/// Prints `canopy serve: listening on http://HOST:PORT` on standard output once it accepts
/// connections (the actual port when `--port 0` asked for any free one), and log lines on
/// standard error: one per connection and per failed request. SIGINT or SIGTERM stop it in
/// order — no new connections, every connection closed (their onDisconnect operations run
/// once), stores flushed and closed — and it exits 0.
struct ServeCommand {
    /// The usage text.
    static let usage = """
        usage: canopy serve [options]
          --host HOST          address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
          --port PORT          TCP port (default 9000; 0 picks a free port, printed when ready)
          --data DIR           data directory, one store per namespace (default ./canopy-data)
          --backend NAME       sqlite (default) or json
          --rules FILE         security rules (not supported yet: the rules engine has not landed)
          --allow-open         serve a non-loopback address with open access (no rules)
          --tls-cert FILE      PEM certificate (chain): serve https:// and wss://
          --tls-key FILE       PEM private key for --tls-cert
        """

    private let host: String
    private let port: Int
    private let dataDirectory: URL
    private let backend: NamespaceStores.Backend
    private let tls: WebSocketServerTLS?

    /// Parses and checks the options.
    init(arguments: [String]) throws(CommandError) {
        let syntax = CommandLineSyntax(
            usage: Self.usage,
            valueOptions: ["--host", "--port", "--data", "--backend", "--rules", "--tls-cert", "--tls-key"],
            flags: ["--allow-open"], minimumPositionals: 0, maximumPositionals: 0)
        if CanopyCommand.wantsHelp(arguments) { throw .help(Self.usage) }
        let parsed = try syntax.parse(arguments)
        host = parsed.value("--host") ?? "127.0.0.1"
        guard !host.isEmpty else { throw .usage("--host needs an address", Self.usage) }
        let portText = parsed.value("--port") ?? "9000"
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw .usage("--port must be a number from 0 to 65535, not \(portText)", Self.usage)
        }
        self.port = port
        dataDirectory = URL(fileURLWithPath: parsed.value("--data") ?? "canopy-data")
        let backendName = parsed.value("--backend") ?? "sqlite"
        guard let backend = NamespaceStores.Backend(rawValue: backendName) else {
            throw .usage("--backend must be sqlite or json, not \(backendName)", Self.usage)
        }
        self.backend = backend
        if let rules = parsed.value("--rules") {
            throw .usage(
                "--rules \(rules): security rules are not supported yet (the rules engine has not landed); "
                    + "serve without --rules for open access on a loopback address")
        }
        if !Self.isLoopback(host) && !parsed.has("--allow-open") {
            throw .usage(
                "refusing to serve \(host) with open access: without security rules anyone who can reach "
                    + "the port can read and write everything. Bind a loopback address (127.0.0.1), or pass "
                    + "--allow-open to serve open access anyway")
        }
        switch (parsed.value("--tls-cert"), parsed.value("--tls-key")) {
        case (nil, nil):
            tls = nil
        case (let certificate?, let key?):
            for file in [certificate, key] where !FileManager.default.isReadableFile(atPath: file) {
                throw .failure("cannot read the TLS file \(file)")
            }
            tls = WebSocketServerTLS(certificateFile: certificate, privateKeyFile: key)
        default:
            throw .usage("--tls-cert and --tls-key go together", Self.usage)
        }
    }

    /// Serves until SIGINT or SIGTERM; answers the exit status.
    func run() async throws(CommandError) -> Int32 {
        let signals = TerminationSignals()
        let log: @Sendable (String) -> Void = { Console.log($0) }
        let metrics = ServerMetrics()
        let stores = try NamespaceStores(directory: dataDirectory, backend: backend, metrics: metrics)
        let server = CanopyServer(
            configuration: CanopyServer.Configuration(log: log), makeStore: { try stores.openStore($0) })
        let rest = RESTHandler(server: server)
        let handler = ServeHTTPHandler(
            rest: rest, metrics: metrics,
            report: MetricsReport(server: server, stores: stores, metrics: metrics), log: log)
        let listenerConfiguration = WebSocketListenerConfiguration(
            host: host, port: port, tls: tls, keepalive: .server,
            logger: WebSocketLogger(minimumLevel: .error) { _, line in log("websocket: \(line)") },
            trafficMeter: metrics.webSockets)
        let listener: WebSocketListener
        do {
            listener = try await WebSocketListener.start(configuration: listenerConfiguration, httpHandler: handler)
        } catch {
            if let tls, case .contextCreationFailed(let log) = error,
                log.contains(where: { $0.contains("ssl") || $0.contains("cert") })
            {
                throw .failure(
                    "cannot serve https with the certificate \(tls.certificateFile) and key \(tls.privateKeyFile) "
                        + "(both PEM, the key unencrypted and matching the certificate): "
                        + log.joined(separator: " | "))
            }
            throw .failure("cannot listen on \(host):\(port): \(error)")
        }
        let serving = Task { await server.serve(listener) }
        let scheme = tls == nil ? "http" : "https"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        Console.output("canopy serve: listening on \(scheme)://\(shownHost):\(listener.port)")
        log(
            "serving \(dataDirectory.path) (\(backend.rawValue)) on \(scheme)://\(shownHost):\(listener.port); "
                + "open access (no rules)")

        var received = signals.signals.makeAsyncIterator()
        let signal = await received.next() ?? SIGTERM
        log("\(TerminationSignals.name(signal)): shutting down")
        let forceExit = Task {
            if let second = await received.next() {
                Console.log("\(TerminationSignals.name(second)) again: exiting without a clean shutdown")
                exit(1)
            }
        }
        await listener.close()
        await server.shutdown()
        await listener.stop(gracePeriod: .seconds(2))
        await serving.value
        forceExit.cancel()
        log("stopped")
        return 0
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
    }
}
