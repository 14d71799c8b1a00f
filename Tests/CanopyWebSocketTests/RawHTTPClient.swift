import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal blocking HTTP/1.1 client over a TCP socket, run on its own thread so tests do
/// not block the concurrency pool. Every read has a 15 s socket timeout.
enum RawHTTPClient {
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends `request` bytes to 127.0.0.1:`port` and returns everything read until the server
    /// closes the connection.
    static func exchange(port: Int, request: [UInt8]) async throws -> [UInt8] {
        try await onThread {
            let socket = try connect(port: port)
            defer { close(socket) }
            try sendAll(socket, request)
            return try readToEnd(socket)
        }
    }

    /// Sends `request` bytes, reads until the bytes received contain `marker`, then closes the
    /// socket (abandoning the response) and returns what was read.
    static func readUntil(port: Int, request: [UInt8], marker: String) async throws -> [UInt8] {
        let (socket, received) = try await openUntil(port: port, request: request, marker: marker)
        close(socket)
        return received
    }

    /// Sends `request` bytes and reads until the bytes received contain `marker`; returns the
    /// socket, still open (close it with `closeSocket`), and what was read.
    static func openUntil(port: Int, request: [UInt8], marker: String, receiveBufferBytes: Int? = nil)
        async throws -> (Int32, [UInt8])
    {
        try await onThread {
            let socket = try connect(port: port, receiveBufferBytes: receiveBufferBytes)
            do {
                try sendAll(socket, request)
                let wanted = Array(marker.utf8)
                var result: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65536)
                while result.firstRange(of: wanted) == nil {
                    let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else {
                        throw WaitFailure(description: "connection ended or timed out before \(marker)")
                    }
                    result += buffer[..<count]
                }
                return (socket, result)
            } catch {
                close(socket)
                throw error
            }
        }
    }

    /// Performs a websocket upgrade by hand and returns the open socket without ever reading
    /// from it again: a peer that stops answering (no pongs). Close it with `closeSocket`.
    /// `receiveBufferBytes` shrinks the socket's receive buffer (so the server's writes back up
    /// sooner once the test stops reading).
    static func openSilentWebSocket(port: Int, namespace: String = "demo", receiveBufferBytes: Int? = nil)
        async throws -> Int32
    {
        try await onThread {
            let socket = try connect(port: port, receiveBufferBytes: receiveBufferBytes)
            let request =
                "GET /.ws?v=5&ns=\(namespace) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n"
            do {
                try sendAll(socket, Array(request.utf8))
                var result: [UInt8] = []
                var byte: UInt8 = 0
                while result.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
                    guard recv(socket, &byte, 1, 0) == 1 else {
                        throw WaitFailure(description: "upgrade response ended early")
                    }
                    result.append(byte)
                }
                guard String(decoding: result, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
                    throw WaitFailure(description: "upgrade refused: \(String(decoding: result, as: UTF8.self))")
                }
                return socket
            } catch {
                close(socket)
                throw error
            }
        }
    }

    /// A masked client-to-server websocket frame (RFC 6455 §5.2) with a payload under 126 bytes.
    static func clientFrame(final: Bool, opcode: UInt8, payload: String) -> [UInt8] {
        let bytes = Array(payload.utf8)
        precondition(bytes.count < 126, "test frames are short")
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode, 0x80 | UInt8(bytes.count)] + mask
        for (index, byte) in bytes.enumerated() { frame.append(byte ^ mask[index % 4]) }
        return frame
    }

    /// A masked, final client text frame of any length (RFC 6455 §5.2, shortest length form).
    static func clientTextFrame(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if bytes.count < 126 {
            frame.append(0x80 | UInt8(bytes.count))
        } else if bytes.count <= Int(UInt16.max) {
            frame += [0x80 | 126, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xff)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8(truncatingIfNeeded: bytes.count >> shift))
            }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        for (index, byte) in bytes.enumerated() { frame.append(byte ^ mask[index % 4]) }
        return frame
    }

    /// Reads from an open socket until the bytes read contain `marker`; returns them.
    static func read(_ socket: Int32, untilContains marker: String) async throws -> [UInt8] {
        try await onThread {
            let wanted = Array(marker.utf8)
            var result: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while result.firstRange(of: wanted) == nil {
                let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard read > 0 else {
                    throw WaitFailure(description: "connection ended or timed out before \(marker)")
                }
                result += buffer[..<read]
            }
            return result
        }
    }

    /// The start of a masked, final client frame whose header announces `announcedLength`
    /// payload bytes (64-bit length form), followed by only the first `payload` bytes.
    static func clientFrameStart(opcode: UInt8, announcedLength: UInt64, payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [0x80 | opcode, 0x80 | 127]
        for shift in stride(from: 56, through: 0, by: -8) {
            frame.append(UInt8(truncatingIfNeeded: announcedLength >> UInt64(shift)))
        }
        frame += mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        return frame
    }

    /// Reads at least `count` bytes from an open socket; returns what was read.
    static func read(_ socket: Int32, atLeast count: Int) async throws -> [UInt8] {
        try await onThread {
            var result: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while result.count < count {
                let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard read > 0 else {
                    throw WaitFailure(description: "connection ended or timed out after \(result.count) bytes")
                }
                result += buffer[..<read]
            }
            return result
        }
    }

    /// Reads from an open socket until the server closes it; returns what was read.
    static func readToEnd(of socket: Int32) async throws -> [UInt8] {
        try await onThread { try readToEnd(socket) }
    }

    /// Writes raw bytes to an open socket.
    static func write(_ socket: Int32, _ bytes: [UInt8]) async throws {
        try await onThread { try sendAll(socket, bytes) }
    }

    /// Closes a socket returned by `openSilentWebSocket` or `openUntil`.
    static func closeSocket(_ socket: Int32) {
        close(socket)
    }

    /// Sends one request with `Connection: close` and parses the response.
    static func send(
        port: Int, method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "PUT" || method == "POST" || method == "PATCH" {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        let raw = try await exchange(port: port, request: Array(head.utf8) + body)
        return try parse(raw)
    }

    static func parse(_ raw: [UInt8]) throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let split = raw.firstRange(of: separator) else {
            throw WaitFailure(description: "no header terminator in \(String(decoding: raw, as: UTF8.self))")
        }
        let headText = String(decoding: raw[..<split.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw WaitFailure(description: "bad status line in \(headText)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Array(raw[split.upperBound...]))
    }

    /// Runs blocking socket code on a thread of its own.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, with 15 s read and write timeouts.
    static func connect(port: Int, receiveBufferBytes: Int? = nil) throws -> Int32 {
        #if canImport(Glibc)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw WaitFailure(description: "socket() failed") }
        if let receiveBufferBytes {
            var size = Int32(receiveBufferBytes)
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                    Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                    Darwin.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard result == 0 else {
            close(socket)
            throw WaitFailure(description: "connect to port \(port) failed: errno \(errno)")
        }
        return socket
    }

    /// Writes all of `bytes`.
    static func sendAll(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.send(socket, buffer.baseAddress, buffer.count, 0)
                #else
                    Darwin.send(socket, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            guard sent > 0 else { throw WaitFailure(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    private static func readToEnd(_ socket: Int32) throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return result }
            guard count > 0 else {
                throw WaitFailure(description: "recv failed or timed out (errno \(errno)) after \(result.count) bytes")
            }
            result += buffer[..<count]
        }
    }
}
