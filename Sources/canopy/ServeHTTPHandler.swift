import CanopyServer
import CanopyWebSocket

/// The plain-HTTP side of `canopy serve`: `/healthz`, `/metrics`, and every other request
/// handed to the REST API (``RESTHandler``), with event streams relayed chunk by chunk.
/// Counts requests, bytes and streams in ``ServerMetrics`` and logs one line per event
/// stream and per failed request.
struct ServeHTTPHandler: HTTPHandler {
    /// The REST API.
    let rest: RESTHandler
    /// The counters.
    let metrics: ServerMetrics
    /// Renders `/metrics`.
    let report: MetricsReport
    /// Receives log lines.
    let log: @Sendable (String) -> Void

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        metrics.update {
            $0.httpRequests += 1
            $0.httpBytesReceived += request.body.count
        }
        let response: HTTPResponse
        switch request.path {
        case "/healthz":
            response = .text(200, "ok\n")
        case "/metrics":
            response = .text(200, await report.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        default:
            response = await restResponse(to: request)
        }
        if case .complete(let status, _, let body) = response {
            metrics.update {
                $0.httpBytesSent += body.count
                if status >= 400 { $0.httpErrors += 1 }
            }
            if status >= 400 {
                let detail = String(decoding: body.prefix(300), as: UTF8.self)
                log("\(request.remoteAddress) \(request.method) \(request.path): \(status) \(detail)")
            }
        }
        return response
    }

    private func restResponse(to request: HTTPRequest) async -> HTTPResponse {
        let restRequest = RESTRequest(
            method: request.method == "HEAD" ? "GET" : request.method, path: request.path,
            query: request.queryItems.map { RESTRequest.Parameter($0.name, $0.value) },
            headers: RESTHeaders(request.headers.map { RESTHeaders.Field($0.name, $0.value) }), body: request.body)
        switch await rest.handle(restRequest) {
        case .response(let response):
            return .complete(
                status: response.status, headers: response.headers.fields.map { HTTPHeader($0.name, $0.value) },
                body: response.body)
        case .stream(let stream):
            return .stream(
                status: stream.status, headers: stream.headers.fields.map { HTTPHeader($0.name, $0.value) },
                body: relay(stream, for: request))
        }
    }

    /// The events of `stream` as byte chunks, counted and logged; stops the events when the
    /// client goes away.
    private func relay(_ stream: RESTStream, for request: HTTPRequest) -> AsyncStream<[UInt8]> {
        let metrics = metrics
        let log = log
        let peer = "\(request.remoteAddress) event stream at \(request.path)"
        metrics.update {
            $0.openEventStreams += 1
            $0.eventStreamsOpened += 1
        }
        log("\(peer): opened")
        return AsyncStream { continuation in
            let relaying = Task {
                for await event in stream.events {
                    let bytes = event.bytes
                    metrics.update { $0.httpBytesSent += bytes.count }
                    continuation.yield(bytes)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                relaying.cancel()
                metrics.update { $0.openEventStreams -= 1 }
                log("\(peer): closed")
            }
        }
    }
}
