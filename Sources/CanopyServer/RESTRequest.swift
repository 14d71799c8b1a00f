import CanopyWire

/// One HTTP request to the REST API, independent of the HTTP server that received it
/// (protocol.md §11).
///
/// ``path`` and the ``query`` parameters are percent-decoded; build a request from the raw
/// request target with ``init(method:target:headers:body:)``.
public struct RESTRequest: Sendable {
    /// One query parameter, percent-decoded.
    public struct Parameter: Sendable, Equatable {
        /// The parameter name.
        public var name: String
        /// The parameter value (empty when the parameter had no `=`).
        public var value: String

        /// Creates a parameter.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The HTTP method as sent (`GET`, `PUT`, `POST`, `PATCH`, `DELETE`, …).
    public var method: String
    /// The percent-decoded path, such as `/users/alice.json` (`/.json` for the root).
    public var path: String
    /// The query parameters in order, percent-decoded.
    public var query: [Parameter]
    /// The header fields.
    public var headers: RESTHeaders
    /// The request body.
    public var body: [UInt8]

    /// Creates a request from already decoded parts.
    public init(method: String, path: String, query: [Parameter] = [], headers: RESTHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Creates a request from the raw request target of the request line
    /// (`/users/alice.json?print=pretty&orderBy=%22%24key%22`): the path and every query
    /// parameter name and value are percent-decoded. An absolute target
    /// (`http://host/path`) is reduced to its path and query; a fragment is dropped.
    ///
    /// - Throws: ``RESTError`` (400) for a malformed percent-escape or decoded bytes that are
    ///   not UTF-8.
    public init(method: String, target: String, headers: RESTHeaders = [:], body: [UInt8] = []) throws(RESTError) {
        var rest = Substring(target)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let scheme = rest.range(of: "://") {
            let afterScheme = rest[scheme.upperBound...]
            rest = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
        }
        let rawPath: Substring
        var rawQuery: Substring = ""
        if let question = rest.firstIndex(of: "?") {
            rawPath = rest[..<question]
            rawQuery = rest[rest.index(after: question)...]
        } else {
            rawPath = rest
        }
        var query: [Parameter] = []
        for piece in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            query.append(
                Parameter(
                    try Self.percentDecoded(name, component: "query parameter name"),
                    try Self.percentDecoded(value, component: "query parameter \(name)")))
        }
        self.init(
            method: method, path: try Self.percentDecoded(rawPath, component: "path"), query: query,
            headers: headers, body: body)
    }

    /// The value of the last query parameter named `name` (names are case-sensitive).
    public func parameter(_ name: String) -> String? {
        query.last { $0.name == name }?.value
    }

    /// `text` percent-decoded (strictly, `+` stays `+`).
    ///
    /// - Throws: ``RESTError`` (400) when a `%` is not followed by two hexadecimal digits or
    ///   the decoded bytes are not valid UTF-8; `component` names the part for the message.
    private static func percentDecoded(_ text: Substring, component: String) throws(RESTError) -> String {
        do {
            return try PercentDecoder.decode(text)
        } catch {
            switch error {
            case .invalidEscape: throw .badRequest("Invalid percent-encoding in the \(component)")
            case .invalidUTF8: throw .badRequest("The \(component) is not valid UTF-8 after percent-decoding")
            }
        }
    }
}
