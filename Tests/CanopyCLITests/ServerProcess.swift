import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `canopy serve --port 0` on a data directory, started and waited for until it prints its
/// ready line.
struct ServerProcess {
    /// The running process.
    let process: CanopyProcess
    /// The base URL from the ready line, such as `http://127.0.0.1:41234`.
    let base: String

    /// Starts a server on `data` with `backend` and waits for its ready line.
    init(data: URL, backend: String = "sqlite", extra: [String] = []) async throws {
        process = try CanopyProcess(
            ["serve", "--port", "0", "--data", data.path, "--backend", backend] + extra, timeout: 120)
        let lines = await process.lines(atLeast: 1)
        let prefix = "canopy serve: listening on "
        guard let ready = lines.first, ready.hasPrefix(prefix) else {
            process.send(SIGKILL)
            throw ServerDidNotStart(output: lines, errors: process.errorsSoFar)
        }
        base = String(ready.dropFirst(prefix.count))
    }

    /// A database URL on this server: `base` + `path` + `?ns=namespace`.
    func url(_ path: String, namespace: String = "test") -> String {
        "\(base)\(path)?ns=\(namespace)"
    }

    /// Sends SIGTERM and waits for the exit.
    func stop() async -> CanopyProcess.Outcome {
        process.send(SIGTERM)
        return await process.finish()
    }

    /// A plain HTTP GET on the server (for `/healthz` and `/metrics`): status and body.
    func fetch(_ path: String) async throws -> (status: Int, body: String) {
        guard let url = URL(string: base + path) else { throw URLError(.badURL) }
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: url) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    continuation.resume(returning: (status, String(decoding: data ?? Data(), as: UTF8.self)))
                }
            }.resume()
        }
    }
}

/// The server exited or printed something else before its ready line.
struct ServerDidNotStart: Error, CustomStringConvertible {
    var output: [String]
    var errors: String
    var description: String { "canopy serve did not start; output: \(output), errors: \(errors)" }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    /// The directory.
    let url: URL

    /// Creates the directory.
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("canopy-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Deletes the directory and its contents.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
