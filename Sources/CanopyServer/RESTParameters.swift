import CanopyTree

/// The query parameters and credential headers of one REST request, parsed and checked
/// (protocol.md §11.2, §11.4).
struct RESTParameters: Sendable {
    /// What `print` asks for.
    enum PrintMode: Sendable {
        /// Compact JSON.
        case compact
        /// `print=pretty`: indented JSON.
        case pretty
        /// `print=silent`: `204 No Content` on success.
        case silent
    }

    /// The longest `timeout` accepted.
    static let maximumTimeout: Duration = .seconds(15 * 60)

    /// `print`.
    var print = PrintMode.compact
    /// `format=export`: priorities included, no array conversion.
    var exportFormat = false
    /// `shallow=true`.
    var shallow = false
    /// Whether any query parameter (`orderBy`, `startAt`, …) was given.
    var hasQuery = false
    /// The query the parameters describe (``QueryParams/default`` when none).
    var query = QueryParams.default
    /// `timeout`: the longest a read may take.
    var timeout: Duration?
    /// `writeSizeLimit`.
    var writeSizeLimit: RESTWriteSizeLimit?
    /// `callback`: the JSONP function name.
    var callback: String?
    /// `download`: the file name for `Content-Disposition`.
    var download: String?
    /// `ns`.
    var namespace: String?
    /// `x-http-method-override` (the query-parameter form).
    var methodOverride: String?
    /// Who the request acts as.
    var auth = ConnectionAuth.unauthenticated

    /// Parses the parameters and the `Authorization` header of `request`.
    ///
    /// - Throws: ``RESTError`` (400) naming the first malformed parameter.
    init(_ request: RESTRequest) throws(RESTError) {
        switch request.parameter("print") {
        case nil: break
        case "pretty": print = .pretty
        case "silent": print = .silent
        case let other?: throw .badRequest("Invalid print parameter \"\(other)\": expected pretty or silent")
        }
        switch request.parameter("format") {
        case nil: break
        case "export": exportFormat = true
        case let other?: throw .badRequest("Invalid format parameter \"\(other)\": expected export")
        }
        switch request.parameter("shallow") {
        case nil, "false": break
        case "true": shallow = true
        case let other?: throw .badRequest("Invalid shallow parameter \"\(other)\": expected true")
        }
        var queryParameters: [String: String] = [:]
        for parameter in request.query where QueryParams.restParameterNames.contains(parameter.name) {
            queryParameters[parameter.name] = parameter.value
        }
        hasQuery = !queryParameters.isEmpty
        do {
            query = try QueryParams(restParameters: queryParameters)
        } catch {
            throw .badRequest(error.description)
        }
        if shallow && hasQuery {
            throw .badRequest("shallow cannot be combined with orderBy or other query parameters")
        }
        if let text = request.parameter("timeout") { timeout = try RESTParameters.parseTimeout(text) }
        if let text = request.parameter("writeSizeLimit") {
            guard let limit = RESTWriteSizeLimit(rawValue: text) else {
                throw .badRequest(
                    "Invalid writeSizeLimit \"\(text)\": expected tiny, small, medium, large or unlimited")
            }
            writeSizeLimit = limit
        }
        if let name = request.parameter("callback") {
            guard RESTParameters.isCallbackName(name) else {
                throw .badRequest("Invalid callback \"\(name)\": expected a JavaScript identifier")
            }
            callback = name
        }
        download = request.parameter("download")
        namespace = request.parameter("ns").flatMap { $0.isEmpty ? nil : $0 }
        methodOverride = request.parameter("x-http-method-override")
        auth = try RESTParameters.auth(of: request)
    }

    /// The credential: `auth` (a Firebase token), else `access_token` or
    /// `Authorization: Bearer` (a Google OAuth2 token), plus `auth_variable_override`.
    private static func auth(of request: RESTRequest) throws(RESTError) -> ConnectionAuth {
        var auth = ConnectionAuth.unauthenticated
        if let token = request.parameter("auth"), !token.isEmpty {
            auth.credential = token
        } else if let token = request.parameter("access_token"), !token.isEmpty {
            auth.credential = token
            auth.kind = .googleAccessToken
        } else if let header = request.headers["Authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw RESTError(status: 401, message: "Unsupported Authorization header: expected Bearer <token>")
            }
            auth.credential = String(parts[1])
            auth.kind = .googleAccessToken
        }
        if let text = request.parameter("auth_variable_override") {
            let value: JSONValue
            do {
                value = try JSONParser.parse(text)
            } catch {
                throw .badRequest("Invalid auth_variable_override: not JSON (\(error))")
            }
            switch value {
            case .null: auth.actsUnauthenticated = true
            case .object: auth.authVariable = value
            default: throw .badRequest("Invalid auth_variable_override: expected a JSON object or null")
            }
        }
        return auth
    }

    /// Parses `<n>ms`, `<n>s` or `<n>min`, at most 15 minutes.
    static func parseTimeout(_ text: String) throws(RESTError) -> Duration {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = text.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 9, let count = Int64(digits) else {
            throw .badRequest("Invalid timeout \"\(text)\": expected <n>ms, <n>s or <n>min")
        }
        let duration: Duration
        switch unit {
        case "ms": duration = .milliseconds(count)
        case "s": duration = .seconds(count)
        case "min": duration = .seconds(count * 60)
        default: throw .badRequest("Invalid timeout \"\(text)\": expected <n>ms, <n>s or <n>min")
        }
        guard duration <= maximumTimeout else {
            throw .badRequest("Invalid timeout \"\(text)\": the maximum is 15min")
        }
        return duration
    }

    /// Whether `name` is a JavaScript identifier path (`cb`, `app.cb_1`, `$x`).
    private static func isCallbackName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first), first != "." else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "$" || scalar == ".")
        }
    }
}
