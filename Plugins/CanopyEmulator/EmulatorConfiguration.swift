import Foundation

/// The settings of the local server, read from `canopy.json` at a package's root (every
/// member optional):
///
/// ```json
/// {
///   "host": "127.0.0.1",
///   "port": 9000,
///   "data": ".canopy-data",
///   "backend": "sqlite",
///   "rules": "database.rules.json",
///   "tls": { "cert": "dev-cert.pem", "key": "dev-key.pem" }
/// }
/// ```
///
/// File paths are relative to the package root. Without `canopy.json` the server runs with its
/// defaults, its data in `.canopy-data` at the package root.
struct EmulatorConfiguration {
    /// Why `canopy.json` cannot be used.
    struct Problem: Error, CustomStringConvertible {
        /// What is wrong, naming the member.
        let description: String
    }

    /// The file name looked for at the package root.
    static let fileName = "canopy.json"
    private static let members: Set<String> = ["host", "port", "data", "backend", "rules", "tls"]

    /// The `canopy serve` options the file asks for.
    let serveArguments: [String]

    /// Reads `canopy.json` in `root`, if there is one.
    init(root: URL) throws {
        let file = root.appendingPathComponent(Self.fileName)
        var arguments: [String] = []
        var data = root.appendingPathComponent(".canopy-data").path
        if FileManager.default.fileExists(atPath: file.path) {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
            guard let settings = object as? [String: Any] else {
                throw Problem(description: "\(file.path) must hold a JSON object")
            }
            if let unknown = settings.keys.first(where: { !Self.members.contains($0) }) {
                throw Problem(
                    description: "\(file.path): unknown member \"\(unknown)\" (known: "
                        + Self.members.sorted().joined(separator: ", ") + ")")
            }
            if let host = settings["host"] {
                arguments += ["--host", try Self.string(host, "host", file)]
            }
            if let port = settings["port"] {
                guard let number = port as? Int, (0...65535).contains(number) else {
                    throw Problem(description: "\(file.path): \"port\" must be a number from 0 to 65535")
                }
                arguments += ["--port", String(number)]
            }
            if let backend = settings["backend"] {
                arguments += ["--backend", try Self.string(backend, "backend", file)]
            }
            if let value = settings["data"] {
                data = Self.resolve(try Self.string(value, "data", file), in: root)
            }
            if let rules = settings["rules"] {
                arguments += ["--rules", Self.resolve(try Self.string(rules, "rules", file), in: root)]
            }
            if let tls = settings["tls"] {
                guard let pair = tls as? [String: Any], let cert = pair["cert"] as? String,
                    let key = pair["key"] as? String
                else {
                    throw Problem(description: "\(file.path): \"tls\" must be {\"cert\": FILE, \"key\": FILE}")
                }
                arguments += ["--tls-cert", Self.resolve(cert, in: root), "--tls-key", Self.resolve(key, in: root)]
            }
        }
        serveArguments = ["--data", data] + arguments
    }

    private static func string(_ value: Any, _ member: String, _ file: URL) throws -> String {
        guard let text = value as? String else {
            throw Problem(description: "\(file.path): \"\(member)\" must be a string")
        }
        return text
    }

    /// `path` relative to `root` unless it is absolute.
    private static func resolve(_ path: String, in root: URL) -> String {
        path.hasPrefix("/") ? path : root.appendingPathComponent(path).path
    }
}
