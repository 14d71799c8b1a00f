import CanopyTree
import CanopyWebSocket
import Foundation

/// Makes REST requests (protocol.md §11) for the client commands and turns transport
/// failures and error responses into ``CommandError``s a person can act on.
///
/// Requests go through libwebsockets' HTTP client (``CanopyWebSocket/HTTPClientRequest``)
/// rather than `URLSession`, because `--cacert` must work on Linux too: there `URLSession`
/// verifies `https` servers against the system store only.
struct RESTClient: Sendable {
    /// The location the requests address.
    let location: DatabaseURL
    /// How `https` servers are verified.
    let tls: WebSocketTLSOptions

    /// The usage line of the option every client command takes.
    static let certificateAuthorityUsage =
        "  --cacert FILE   also trust the certificate authority (PEM) in FILE for https:// URLs"

    /// A client for `location`, trusting the authority in the file named by `--cacert` (if
    /// given) besides the system store.
    ///
    /// - Throws: ``CommandError`` when the file cannot be read.
    init(location: DatabaseURL, arguments: CommandLineArguments) throws(CommandError) {
        self.location = location
        let authority = arguments.value("--cacert")
        if let authority, !FileManager.default.isReadableFile(atPath: authority) {
            throw .failure("cannot read the certificate authority file \(authority)")
        }
        tls = WebSocketTLSOptions(customCAFile: authority)
    }

    /// A complete response.
    struct Reply: Sendable {
        /// The HTTP status code.
        var status: Int
        /// The body.
        var body: [UInt8]

        /// The body as UTF-8 text.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A request for the location: `method`, extra (percent-encoded) query items, an optional
    /// body and `Accept` header. `timeout` is the longest silence allowed, in seconds.
    func request(
        _ method: String, query: [URLQueryItem] = [], body: [UInt8]? = nil, accept: String? = nil, timeout: Int = 60
    ) throws(CommandError) -> HTTPClientRequest {
        var headers: [HTTPHeader] = []
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json; charset=utf-8")) }
        if let accept { headers.append(HTTPHeader("Accept", accept)) }
        let url = try location.restURL(query)
        do {
            return try HTTPClientRequest(
                method: method, url: url.absoluteString, headers: headers, body: body, tls: tls,
                idleTimeoutSeconds: timeout)
        } catch {
            throw .usage("cannot make a request URL from \(url.absoluteString): \(error)")
        }
    }

    /// Sends `request`, reporting each event to `progress`; answers the reply of a successful
    /// (2xx) request.
    ///
    /// - Throws: ``CommandError`` when the server cannot be reached or answers an error.
    func send(_ request: HTTPClientRequest, progress: (HTTPClientEvent) -> Void = { _ in }) async throws(CommandError)
        -> Reply
    {
        var reply = Reply(status: 0, body: [])
        do {
            for try await event in request.start() {
                switch event {
                case .response(let status, _): reply.status = status
                case .data(let bytes): reply.body.append(contentsOf: bytes)
                case .sent: break
                }
                progress(event)
            }
        } catch {
            throw unreachable(error)
        }
        guard (200..<300).contains(reply.status) else { throw Self.failure(status: reply.status, body: reply.body) }
        return reply
    }

    /// The error for a failed transfer; a certificate problem on `https` suggests `--cacert`.
    func unreachable(_ error: any Error) -> CommandError {
        let reason: String
        if case .connectionFailed(let text, let log)? = error as? WebSocketError {
            reason = text + (log.isEmpty ? "" : " (" + log.joined(separator: " | ") + ")")
        } else {
            reason = String(describing: error)
        }
        var message = "cannot reach \(location.display): \(reason)"
        let lowered = reason.lowercased()
        if location.scheme == "https", ["certificate", "ssl", "tls"].contains(where: lowered.contains) {
            if let file = tls.customCAFile {
                message +=
                    "\nthe server's certificate was refused: check that \(file) (or the system store) holds the "
                    + "authority that signed it and that it names this host"
            } else {
                message +=
                    "\nthe server's certificate is not trusted; pass --cacert FILE with the authority (PEM) that signed it"
            }
        }
        return .failure(message)
    }

    /// The error for an error response: its status and the `error` member of its JSON body.
    static func failure(status: Int, body: [UInt8]) -> CommandError {
        let detail: String
        if case .object(let members)? = try? JSONParser.parse(body),
            case .string(let message)? = members.first(where: { $0.key == "error" })?.value
        {
            detail = message
        } else {
            detail = String(decoding: body.prefix(500), as: UTF8.self)
        }
        return .failure("the server answered \(status)\(detail.isEmpty ? "" : ": \(detail)")")
    }
}
