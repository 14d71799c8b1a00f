import Foundation

/// A database location given on the command line, such as
/// `http://127.0.0.1:9000/users/ada?ns=demo` or `http://demo.localhost:9000/users/ada`, and
/// the REST URLs derived from it (`…/users/ada.json?ns=demo`).
///
/// The namespace is the `ns` query parameter; a host `NAME.localhost` names namespace `NAME`
/// (sent as `ns=NAME`, since a two-label host does not name one on its own); otherwise the
/// server picks (its default namespace, or the first label of a longer host name). Other
/// query parameters (`orderBy`, `limitToFirst`, `shallow`, …) are passed to the server as
/// given. A trailing `/` or `.json` on the path is accepted.
struct DatabaseURL: Sendable {
    /// `http` or `https`.
    let scheme: String
    /// The host and optional port, as written (`127.0.0.1:9000`).
    let authority: String
    /// The percent-encoded location path without `.json`, `""` for the root.
    let path: String
    /// The percent-encoded query items sent with every request, `ns` first when known.
    let query: [URLQueryItem]

    /// Parses `text`.
    init(_ text: String) throws(CommandError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw .usage(
                "\(text) is not a database URL; write it like http://127.0.0.1:9000/path?ns=name "
                    + "or http://name.localhost:9000/path")
        }
        self.scheme = scheme
        let hostText = host.contains(":") ? "[\(host)]" : host
        self.authority = components.port.map { "\(hostText):\($0)" } ?? hostText
        var path = components.percentEncodedPath
        if path.hasSuffix(".json") { path.removeLast(5) }
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
        var items = components.percentEncodedQueryItems ?? []
        if !items.contains(where: { $0.name == "ns" }) {
            let labels = host.lowercased().split(separator: ".")
            if labels.count == 2, labels[1] == "localhost" {
                items.insert(URLQueryItem(name: "ns", value: String(labels[0])), at: 0)
            }
        }
        self.query = items
    }

    /// The REST URL of the location with `extra` query items (already percent-encoded) added.
    func restURL(_ extra: [URLQueryItem] = []) throws(CommandError) -> URL {
        let items = query + extra
        let queryText = items.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }
            .joined(separator: "&")
        let text =
            "\(scheme)://\(authority)\(path.isEmpty ? "/" : path).json"
            + (queryText.isEmpty ? "" : "?" + queryText)
        guard let url = URL(string: text) else { throw .usage("cannot make a request URL from \(text)") }
        return url
    }

    /// The location for messages: `scheme://authority/path`.
    var display: String {
        "\(scheme)://\(authority)\(path.isEmpty ? "/" : path)"
    }
}
