import CanopyScenarios
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP connection to 127.0.0.1 for sending hand-made (and broken) HTTP requests and
/// websocket frames. Blocking calls run on their own threads; every read gives up after 20 s.
final class RawSocket: @unchecked Sendable {
    /// An HTTP response read to the end of the connection.
    struct HTTPResponse: Sendable {
        var status: Int
        var head: String
        var body: [UInt8]
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    // Only used by one task at a time (each test drives its own sockets sequentially).
    private let descriptor: Int32
    private var isClosed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to 127.0.0.1:`port`.
    static func connect(port: Int) async throws -> RawSocket {
        try await blocking {
            #if canImport(Glibc)
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { throw TestTimeout(description: "socket() failed: \(errno)") }
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else {
                Glibc.close(descriptor)
                throw TestTimeout(description: "connect to port \(port) failed: \(errno)")
            }
            return RawSocket(descriptor: descriptor)
        }
    }

    /// Sends all of `bytes`; a peer that already closed is not an error (answers false).
    @discardableResult
    func write(_ bytes: [UInt8]) async throws -> Bool {
        let descriptor = self.descriptor
        return try await Self.blocking {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Up to `count` bytes; empty at the end of the connection (or when it was reset).
    func read(atMost count: Int = 65536) async throws -> [UInt8] {
        let descriptor = self.descriptor
        return try await Self.blocking {
            var buffer = [UInt8](repeating: 0, count: count)
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw TestTimeout(description: "no data from the server within 20 s")
                }
                return []
            }
            return Array(buffer[..<received])
        }
    }

    /// Everything until the server closes the connection.
    func readToEnd() async throws -> [UInt8] {
        var result: [UInt8] = []
        while true {
            let chunk = try await read()
            if chunk.isEmpty { return result }
            result += chunk
        }
    }

    /// Closes the connection.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    deinit {
        close()
    }

    /// Sends one HTTP/1.1 request with `Connection: close` (and a `Content-Length` for `body`
    /// unless `headers` has one) and reads the whole response.
    static func http(
        port: Int, method: String, target: String, body: [UInt8]? = nil, headers: [String] = []
    ) async throws -> HTTPResponse {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        if let body, !headers.contains(where: { $0.lowercased().hasPrefix("content-length:") }) {
            request += "Content-Length: \(body.count)\r\n"
        }
        let socket = try await connect(port: port)
        defer { socket.close() }
        try await socket.write(Array((request + "\r\n").utf8) + (body ?? []))
        let bytes = try await socket.readToEnd()
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.firstRange(of: separator) else {
            throw TestTimeout(description: "incomplete HTTP response: \(String(decoding: bytes, as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let statusField = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        guard let status = statusField else { throw TestTimeout(description: "bad status line: \(head)") }
        var body = Array(bytes[end.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = dechunked(body) }
        return HTTPResponse(status: status, head: head, body: body)
    }

    /// The payload of a chunked HTTP body.
    private static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var rest = bytes[...]
        let lineEnd = Array("\r\n".utf8)
        while let sizeEnd = rest.firstRange(of: lineEnd),
            let size = Int(String(decoding: rest[..<sizeEnd.lowerBound], as: UTF8.self), radix: 16), size > 0
        {
            let start = sizeEnd.upperBound
            let end = min(rest.endIndex, start + size)
            result += rest[start..<end]
            rest = rest[min(rest.endIndex, end + 2)...]
        }
        return result
    }

    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
