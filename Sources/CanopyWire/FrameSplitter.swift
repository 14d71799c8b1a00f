/// Splits serialized messages into websocket text frames (protocol.md §2.2).
///
/// A message of at most ``maxFrameSize`` UTF-16 code units is one frame. A longer one is
/// sent as a frame holding the decimal chunk count, then the chunks. Chunks end on Unicode
/// scalar boundaries, so every frame is valid text on its own and no surrogate pair is cut.
/// The count never exceeds ``maxFrameCount``: for very large messages the chunk size grows
/// instead. A count frame is never `"0"`.
public struct FrameSplitter: Sendable, Equatable {
    /// The largest frame, in UTF-16 code units, before splitting (at least 1).
    public let maxFrameSize: Int
    /// The largest chunk count announced (at least 1).
    public let maxFrameCount: Int

    /// Creates a splitter; the defaults are the protocol's 16384 units and 9999 chunks.
    public init(maxFrameSize: Int = WireProtocol.maxFrameSize, maxFrameCount: Int = WireProtocol.maxFrameCount) {
        self.maxFrameSize = max(1, maxFrameSize)
        self.maxFrameCount = max(1, maxFrameCount)
    }

    /// The frames that carry `message`, in sending order.
    public func frames(for message: String) -> [String] {
        let length = message.utf16.count
        guard length > maxFrameSize else { return [message] }
        var chunkSize = max(maxFrameSize, (length + maxFrameCount - 1) / maxFrameCount)
        while true {
            let chunks = split(message, chunkSize: chunkSize)
            if chunks.count <= maxFrameCount { return [String(chunks.count)] + chunks }
            // Chunks cut short at scalar boundaries can overflow the count; widen and retry.
            chunkSize += 1
        }
    }

    /// The frames for an encoded message.
    public func frames(for message: WireMessage) -> [String] {
        frames(for: message.serialized())
    }

    private func split(_ message: String, chunkSize: Int) -> [String] {
        var chunks: [String] = []
        var start = message.unicodeScalars.startIndex
        var units = 0
        var index = start
        let scalars = message.unicodeScalars
        while index != scalars.endIndex {
            let width = scalars[index].utf16.count
            if units > 0 && units + width > chunkSize {
                chunks.append(String(scalars[start..<index]))
                start = index
                units = 0
            }
            units += width
            index = scalars.index(after: index)
        }
        if units > 0 { chunks.append(String(scalars[start..<index])) }
        return chunks
    }
}
