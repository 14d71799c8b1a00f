/// What the REST handler answers: a complete response, or a stream of server-sent events.
public enum RESTReply: Sendable {
    /// A complete response.
    case response(RESTResponse)
    /// A stream of events (a `GET` with `Accept: text/event-stream`).
    case stream(RESTStream)
}
