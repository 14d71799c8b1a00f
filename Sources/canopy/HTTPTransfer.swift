import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request made with `URLSession`, reported as a sequence of ``Event``s as they
/// happen: upload progress, the response head, each piece of the body. Streaming responses
/// (Server-Sent Events) and progress bars both read the same sequence.
final class HTTPTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What happens during a transfer, in order.
    enum Event: Sendable {
        /// Part of the request body was sent: bytes so far and in all.
        case sent(Int64, of: Int64)
        /// The response head arrived: the status and the announced body length (-1 unknown).
        case response(status: Int, expectedLength: Int64)
        /// A piece of the response body arrived.
        case data([UInt8])
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

    private let continuation: AsyncThrowingStream<Event, any Error>.Continuation

    private init(continuation: AsyncThrowingStream<Event, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Starts `request` and returns its events; the sequence ends when the response is
    /// complete and throws the transport's error when the request fails. Dropping the
    /// sequence cancels the request.
    static func start(_ request: URLRequest) -> AsyncThrowingStream<Event, any Error> {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: Event.self, throwing: (any Error).self)
        let transfer = HTTPTransfer(continuation: continuation)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = request.timeoutInterval
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: queue)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            session.finishTasksAndInvalidate()
        }
        task.resume()
        return events
    }

    /// Sends `request` and collects the whole response, calling `progress` with each event.
    static func send(_ request: URLRequest, progress: (Event) -> Void = { _ in }) async throws -> Reply {
        var reply = Reply(status: 0, body: [])
        for try await event in start(request) {
            switch event {
            case .response(let status, _): reply.status = status
            case .data(let bytes): reply.body.append(contentsOf: bytes)
            case .sent: break
            }
            progress(event)
        }
        return reply
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        continuation.yield(.response(status: status, expectedLength: response.expectedContentLength))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.data([UInt8](data)))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        continuation.yield(.sent(totalBytesSent, of: totalBytesExpectedToSend))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        continuation.finish(throwing: error)
        session.finishTasksAndInvalidate()
    }
}
