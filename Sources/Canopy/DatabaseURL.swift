import CanopyTree
import CanopyWire
import Foundation

/// A database location parsed from a URL: where to connect and which path it names.
///
/// Accepted forms: `https://<ns>.firebaseio.com/path`, `http://127.0.0.1:9000/path?ns=<ns>`,
/// `ws://…`/`wss://…`, and `loopback://<listener>/path?ns=<ns>` for an in-process
/// server. `https`, `wss` use TLS. The namespace is the `ns` query parameter, else the first
/// label of a host name with three or more labels, else the server's default.
struct DatabaseURL: Sendable, Equatable {
    /// The scheme as given (`https`, `http`, `ws`, `wss`, `loopback`).
    let scheme: String
    /// The host with its port when not the default.
    let host: String
    /// The namespace to ask for, when one must be sent.
    let namespace: String?
    /// The path named by the URL.
    let path: Path

    /// Parses `text`.
    ///
    /// - Throws: ``DatabaseError`` (`DatabaseError.Code.invalidArgument`) when the text is
    ///   not a URL with a host, or its path is not a valid database path.
    init(parsing text: String) throws(DatabaseError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let hostName = components.host, !hostName.isEmpty
        else {
            throw DatabaseError.invalidArgument(
                "Invalid database URL \"\(text)\": expected scheme://host[:port][/path]")
        }
        self.scheme = scheme
        self.host = components.port.map { "\(hostName):\($0)" } ?? hostName
        let ns = components.queryItems?.first { $0.name == "ns" }?.value
        if let ns, !ns.isEmpty {
            self.namespace = ns
        } else {
            self.namespace = nil
        }
        let decodedPath = components.percentEncodedPath.split(separator: "/").map {
            String($0).removingPercentEncoding ?? String($0)
        }
        self.path = try DatabasePath.child(decodedPath.joined(separator: "/"), of: .root)
    }

    /// Whether the connection uses TLS.
    var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// Where the engine connects.
    var target: ConnectionTarget {
        ConnectionTarget(host: host, isSecure: isSecure, namespace: namespace)
    }

    /// The same database at another host (``Database/useEmulator(withHost:port:)``): plain
    /// HTTP, the namespace kept (taken from the old host when it was implied by it).
    func redirected(toHost newHost: String, port: Int) -> DatabaseURL {
        let impliedNamespace = namespace ?? DatabaseURL.namespaceLabel(of: host)
        return DatabaseURL(scheme: "http", host: "\(newHost):\(port)", namespace: impliedNamespace, path: path)
    }

    private init(scheme: String, host: String, namespace: String?, path: Path) {
        self.scheme = scheme
        self.host = host
        self.namespace = namespace
        self.path = path
    }

    /// The database's identity: scheme, host and namespace (not the path).
    var identity: String { "\(scheme)://\(host)?ns=\(namespace ?? "")" }

    /// The URL of `path` in this database: `scheme://host/a/b` plus `?ns=…` when the
    /// namespace is not implied by the host.
    func url(of path: Path) -> String {
        var text = "\(scheme)://\(host)"
        for key in path.keys {
            text +=
                "/"
                + (key.string.addingPercentEncoding(withAllowedCharacters: DatabaseURL.segmentCharacters) ?? key.string)
        }
        if path.isRoot { text += "/" }
        if let namespace, namespace != DatabaseURL.namespaceLabel(of: host) {
            text += "?ns=" + namespace
        }
        return text
    }

    /// The first label of a host name with three or more labels (`ns` of `ns.example.com`).
    private static func namespaceLabel(of host: String) -> String? {
        let name = host.split(separator: ":").first.map(String.init) ?? host
        let labels = name.split(separator: ".")
        guard labels.count >= 3, !labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) else { return nil }
        return String(labels[0])
    }

    private static let segmentCharacters: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/?#")
        return set
    }()
}
