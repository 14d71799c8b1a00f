/// A streaming REST response (`Accept: text/event-stream`, protocol.md §11.7): the status
/// and header fields, then events until the stream ends.
///
/// The HTTP server writes ``status`` and ``headers`` at once, then each event's
/// ``ServerSentEvent/bytes`` as it arrives, flushing after each. The stream ends (the
/// sequence finishes) after a `cancel` or `auth_revoked` event; when the client goes away,
/// the server stops iterating ``events`` (cancels the consuming task or drops the stream),
/// which releases the stream's listen.
public struct RESTStream: Sendable {
    /// The HTTP status code (200).
    public var status: Int
    /// The header fields (`Content-Type: text/event-stream`, `Cache-Control: no-cache`).
    public var headers: RESTHeaders
    /// The events, in order, starting with a `put` of the whole current value at `/`.
    public var events: AsyncStream<ServerSentEvent>

    /// Creates a stream response.
    public init(status: Int = 200, headers: RESTHeaders, events: AsyncStream<ServerSentEvent>) {
        self.status = status
        self.headers = headers
        self.events = events
    }
}
