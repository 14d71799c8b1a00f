import CanopyScenarios
import Foundation

/// A hand-driven websocket client over a ``RawSocket``: it sends whatever frames a test builds
/// (masked, as a client must, but otherwise free to be wrong) and reads the server's frames.
final class RawWebSocket: @unchecked Sendable {
    /// A frame from the server.
    enum Message: Equatable, Sendable {
        case text(String)
        case close(code: UInt16?)
        /// The connection ended without a close frame.
        case end
    }

    private let socket: RawSocket
    // Bytes read but not yet parsed into frames; used by one task at a time.
    private var buffer: [UInt8]

    private init(socket: RawSocket, buffer: [UInt8]) {
        self.socket = socket
        self.buffer = buffer
    }

    /// Upgrades a new connection to 127.0.0.1:`port` on `/.ws?v=5&ns=namespace`.
    static func open(port: Int, namespace: String) async throws -> RawWebSocket {
        let socket = try await RawSocket.connect(port: port)
        let request =
            "GET /.ws?v=5&ns=\(namespace) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: x3JJHMbDL1EzLkh9GBhXDw==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try await socket.write(Array(request.utf8))
        var received: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        while received.firstRange(of: separator) == nil {
            let chunk = try await socket.read()
            guard !chunk.isEmpty else { throw TestTimeout(description: "the upgrade response ended early") }
            received += chunk
        }
        guard let end = received.firstRange(of: separator) else { throw TestTimeout(description: "no upgrade") }
        let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else { throw TestTimeout(description: "upgrade refused: \(head)") }
        return RawWebSocket(socket: socket, buffer: Array(received[end.upperBound...]))
    }

    /// A masked client frame. `declaredLength` overrides the payload length in the header
    /// (to announce more than is sent).
    static func frame(opcode: UInt8 = 1, final: Bool = true, payload: [UInt8], declaredLength: UInt64? = nil)
        -> [UInt8]
    {
        let length = declaredLength ?? UInt64(payload.count)
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
        if length < 126 {
            frame.append(0x80 | UInt8(length))
        } else if length <= UInt64(UInt16.max) {
            frame += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xff)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((length >> (8 * UInt64($0))) & 0xff) }
        }
        let mask: [UInt8] = [0x3a, 0x91, 0x0c, 0x5e]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// Sends one text frame.
    func send(text: String) async throws {
        try await socket.write(Self.frame(payload: Array(text.utf8)))
    }

    /// Sends raw bytes (frames built by ``frame(opcode:final:payload:declaredLength:)``, or
    /// parts of them).
    @discardableResult
    func send(bytes: [UInt8]) async throws -> Bool {
        try await socket.write(bytes)
    }

    /// The next text or close frame from the server (pings and pongs skipped).
    func receive() async throws -> Message {
        while true {
            guard let (opcode, payload) = try await nextFrame() else { return .end }
            switch opcode {
            case 1: return .text(String(decoding: payload, as: UTF8.self))
            case 8: return .close(code: payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
            default: continue
            }
        }
    }

    /// The next text frame, skipping control messages (the hello); fails on a close.
    func receiveData() async throws -> String {
        while true {
            let message = try await receive()
            guard case .text(let text) = message else {
                throw TestTimeout(description: "the connection closed (\(message)) while waiting for data")
            }
            if !text.hasPrefix(#"{"t":"c""#) { return text }
        }
    }

    /// The next frame that is not a data push (`{"t":"d","d":{"a":…}}`).
    func receiveSkippingPushes() async throws -> Message {
        while true {
            let message = try await receive()
            guard case .text(let text) = message, text.hasPrefix(#"{"t":"d","d":{"a":"#) else { return message }
        }
    }

    /// Waits for the server to end the connection: a close frame or the end of the stream;
    /// answers the text frames before it and what ended it.
    func receiveEnd() async throws -> (texts: [String], end: Message) {
        var texts: [String] = []
        while true {
            let message = try await receive()
            guard case .text(let text) = message else { return (texts, message) }
            texts.append(text)
        }
    }

    /// Closes the TCP connection (without a close frame).
    func close() {
        socket.close()
    }

    private func nextFrame() async throws -> (UInt8, [UInt8])? {
        while true {
            if let frame = parsedFrame() { return frame }
            let chunk = try await socket.read()
            if chunk.isEmpty { return nil }
            buffer += chunk
        }
    }

    /// Removes and answers one complete unmasked server frame from the buffer, if there is one.
    private func parsedFrame() -> (UInt8, [UInt8])? {
        guard buffer.count >= 2 else { return nil }
        let opcode = buffer[0] & 0x0f
        var length = UInt64(buffer[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = UInt64(buffer[2]) << 8 | UInt64(buffer[3])
            offset = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
            offset = 10
        }
        guard UInt64(buffer.count - offset) >= length else { return nil }
        let end = offset + Int(length)
        let payload = Array(buffer[offset..<end])
        buffer.removeFirst(end)
        return (opcode, payload)
    }
}
