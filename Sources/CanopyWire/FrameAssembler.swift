/// Reassembles incoming websocket text frames into complete message texts
/// (protocol.md §2.2).
///
/// When not collecting, a frame of one to ``WireProtocol/maxCountFrameLength`` ASCII digits
/// announces that many chunk frames; `"0"` (the keepalive) announces none and is ignored.
/// Any other frame is a complete message. Collected chunks are concatenated in order.
///
/// Limits surface as ``WireError``s and leave the assembler usable: a count above
/// ``maxFrameCount`` is rejected (`malformedFrame`), and a message growing past
/// ``maxMessageBytes`` is rejected (`messageTooLarge`) while its remaining chunks are
/// skipped, so later messages still decode.
public struct FrameAssembler: Sendable {
    private enum State: Sendable {
        case idle
        case collecting(remaining: Int, chunks: [String], bytes: Int)
        case skipping(remaining: Int)
    }

    /// The largest chunk count accepted.
    public let maxFrameCount: Int
    /// The largest message accepted, in UTF-8 bytes.
    public let maxMessageBytes: Int
    private var state: State = .idle

    /// Creates an assembler. The defaults accept 9999 chunks and 256 MiB per message.
    public init(maxFrameCount: Int = WireProtocol.maxFrameCount, maxMessageBytes: Int = 256 * 1024 * 1024) {
        self.maxFrameCount = maxFrameCount
        self.maxMessageBytes = maxMessageBytes
    }

    /// Whether a count frame has been seen and chunks are still expected.
    public var isCollecting: Bool {
        if case .idle = state { return false }
        return true
    }

    /// Whether `frame` is a count frame (when received outside a chunk sequence).
    public static func chunkCount(of frame: String) -> Int? {
        let bytes = frame.utf8
        guard !bytes.isEmpty, bytes.count <= WireProtocol.maxCountFrameLength else { return nil }
        var count = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            count = count * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return count
    }

    /// Takes one frame; returns a complete message text when one is finished, else `nil`.
    public mutating func receive(_ frame: String) throws(WireError) -> String? {
        switch state {
        case .idle:
            if let count = Self.chunkCount(of: frame) {
                guard count <= maxFrameCount else {
                    throw WireError(
                        .malformedFrame, "chunk count \(count) exceeds the limit of \(maxFrameCount) frames")
                }
                if count > 0 { state = .collecting(remaining: count, chunks: [], bytes: 0) }
                return nil
            }
            guard frame.utf8.count <= maxMessageBytes else {
                throw tooLarge(frame.utf8.count)
            }
            return frame
        case .collecting(let remaining, var chunks, let bytes):
            let total = bytes + frame.utf8.count
            guard total <= maxMessageBytes else {
                state = remaining > 1 ? .skipping(remaining: remaining - 1) : .idle
                throw tooLarge(total)
            }
            chunks.append(frame)
            if remaining > 1 {
                state = .collecting(remaining: remaining - 1, chunks: chunks, bytes: total)
                return nil
            }
            state = .idle
            return chunks.joined()
        case .skipping(let remaining):
            state = remaining > 1 ? .skipping(remaining: remaining - 1) : .idle
            return nil
        }
    }

    private func tooLarge(_ bytes: Int) -> WireError {
        WireError(.messageTooLarge, "message of at least \(bytes) bytes exceeds the limit of \(maxMessageBytes) bytes")
    }
}
