/// What happens during an ``HTTPClientRequest``, in order: body progress, the response head,
/// then the response body piece by piece.
public enum HTTPClientEvent: Sendable, Equatable {
    /// Part of the request body was written: bytes so far and in all.
    case sent(Int, of: Int)
    /// The response head arrived: the status and the announced `Content-Length` (nil when
    /// the body is chunked or ends with the connection, as a Server-Sent Events stream does).
    case response(status: Int, contentLength: Int?)
    /// A piece of the response body arrived (chunked framing already removed).
    case data([UInt8])
}
