import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pipelining HTTP/1.1 client over raw sockets. It writes several requests on one connection
/// without waiting for answers and reads the responses in order. When the server closes the
/// connection before answering them all, it sends the unanswered requests again on a new
/// connection, as RFC 9112 §9.3.2 asks of pipelining clients.
enum PipeliningClient {
    /// One response per request, in request order, and the number of connections used.
    struct Outcome: Sendable {
        var responses: [RawHTTPClient.Response]
        var connections: Int
        /// How many responses each connection carried, in order.
        var responsesPerConnection: [Int]
    }

    /// Sends `requests` (raw HTTP/1.1 text) back to back to 127.0.0.1:`port`.
    ///
    /// On the first connection, `writeSizes` splits the bytes into several writes — one of
    /// each size, then one with the rest — paced `pause` apart so that each reaches the server
    /// in a read of its own; an empty list sends everything in one write.
    static func run(
        port: Int, requests: [String], writeSizes: [Int] = [], pause: TimeInterval = 0.02
    ) async throws -> Outcome {
        try await RawHTTPClient.onThread {
            var remaining = requests[...]
            var outcome = Outcome(responses: [], connections: 0, responsesPerConnection: [])
            while let first = remaining.first {
                outcome.connections += 1
                guard outcome.connections <= requests.count else {
                    throw WaitFailure(
                        description: "the server closed \(outcome.connections - 1) connections, "
                            + "still leaving \(remaining.count) requests unanswered (first: \(first.prefix(40)))")
                }
                let socket = try RawHTTPClient.connect(port: port)
                defer { close(socket) }
                var noDelay: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                let bytes = Array(remaining.joined().utf8)
                let sizes = outcome.connections == 1 ? writeSizes : []
                var offset = 0
                for size in sizes where offset + size < bytes.count {
                    try RawHTTPClient.sendAll(socket, Array(bytes[offset..<offset + size]))
                    offset += size
                    Thread.sleep(forTimeInterval: pause)
                }
                try RawHTTPClient.sendAll(socket, Array(bytes[offset...]))

                var reader = ResponseReader(socket: socket)
                var answered = 0
                while let request = remaining.first {
                    guard let response = try reader.next(answeringHead: request.hasPrefix("HEAD ")) else { break }
                    outcome.responses.append(response)
                    remaining.removeFirst()
                    answered += 1
                    if response.headers["connection"]?.lowercased() == "close" { break }
                }
                outcome.responsesPerConnection.append(answered)
            }
            return outcome
        }
    }

    /// Reads HTTP/1.1 responses framed by `Content-Length` from a blocking socket.
    private struct ResponseReader {
        let socket: Int32
        private var buffer: [UInt8] = []
        private var ended = false

        init(socket: Int32) {
            self.socket = socket
        }

        /// The next response; nil when the server closed the connection before sending one.
        mutating func next(answeringHead: Bool) throws -> RawHTTPClient.Response? {
            let separator = Array("\r\n\r\n".utf8)
            while buffer.firstRange(of: separator) == nil {
                if !(try fill()) {
                    if buffer.isEmpty { return nil }
                    throw WaitFailure(description: "connection ended inside a response head: \(text(buffer))")
                }
            }
            guard let split = buffer.firstRange(of: separator) else { return nil }
            let head = try RawHTTPClient.parse(Array(buffer[..<split.upperBound]))
            let length = answeringHead ? 0 : Int(head.headers["content-length"] ?? "") ?? -1
            guard length >= 0 else {
                throw WaitFailure(description: "response without content-length: \(text(buffer[..<split.lowerBound]))")
            }
            while buffer.count < split.upperBound + length {
                if !(try fill()) {
                    throw WaitFailure(description: "connection ended inside a response body: \(text(buffer))")
                }
            }
            var response = head
            response.body = Array(buffer[split.upperBound..<split.upperBound + length])
            buffer.removeFirst(split.upperBound + length)
            return response
        }

        private mutating func fill() throws -> Bool {
            if ended { return false }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) {
                ended = true
                return false
            }
            guard count > 0 else {
                throw WaitFailure(description: "recv failed or timed out (errno \(errno)) after: \(text(buffer))")
            }
            buffer += chunk[..<count]
            return true
        }

        private func text<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
            String(decoding: bytes, as: UTF8.self)
        }
    }
}
