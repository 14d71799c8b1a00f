/// Splits a Server-Sent Events byte stream into events (protocol.md §11.7): `event:` and
/// `data:` lines, an empty line ending each event. Bytes may arrive in any pieces.
struct ServerSentEventReader: Sendable {
    /// One received event.
    struct Event: Sendable, Equatable {
        /// The event name (`put`, `patch`, `keep-alive`, `cancel`, `auth_revoked`).
        var name: String
        /// The data lines joined with newlines.
        var data: String
    }

    private var line: [UInt8] = []
    private var name = ""
    private var data: [String] = []

    /// Consumes `bytes` and returns the events they complete.
    mutating func read(_ bytes: [UInt8]) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let event = finishLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    private mutating func finishLine() -> Event? {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let text = String(decoding: line, as: UTF8.self)
        line.removeAll(keepingCapacity: true)
        if text.isEmpty {
            defer {
                name = ""
                data = []
            }
            guard !name.isEmpty || !data.isEmpty else { return nil }
            return Event(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"))
        }
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data": data.append(String(value))
        default: break
        }
        return nil
    }
}
