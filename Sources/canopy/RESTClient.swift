import CanopyTree
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Makes REST requests (protocol.md §11) for the client commands and turns transport
/// failures and error responses into ``CommandError``s a person can act on.
struct RESTClient: Sendable {
    /// The location the requests address.
    let location: DatabaseURL

    /// A request for the location: `method`, extra (percent-encoded) query items, an optional
    /// body and `Accept` header. `timeout` is the longest silence allowed while waiting.
    func request(
        _ method: String, query: [URLQueryItem] = [], body: [UInt8]? = nil, accept: String? = nil,
        timeout: TimeInterval = 60
    ) throws(CommandError) -> URLRequest {
        var request = URLRequest(url: try location.restURL(query), timeoutInterval: timeout)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        }
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        return request
    }

    /// Sends `request`, reporting each event to `progress`; answers the reply of a successful
    /// (2xx) request.
    ///
    /// - Throws: ``CommandError`` when the server cannot be reached or answers an error.
    func send(_ request: URLRequest, progress: (HTTPTransfer.Event) -> Void = { _ in }) async throws(CommandError)
        -> HTTPTransfer.Reply
    {
        let reply: HTTPTransfer.Reply
        do {
            reply = try await HTTPTransfer.send(request, progress: progress)
        } catch {
            throw unreachable(error)
        }
        guard (200..<300).contains(reply.status) else { throw Self.failure(status: reply.status, body: reply.body) }
        return reply
    }

    /// The error for a failed transfer.
    func unreachable(_ error: any Error) -> CommandError {
        .failure("cannot reach \(location.display): \(error.localizedDescription)")
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
