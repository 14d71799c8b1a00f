import CanopyTree
import CanopyWire
import Synchronization
import Testing

/// Something a scripted client waited for did not happen in time.
struct ScriptTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// A test client that speaks raw frames over a loopback transport: it sends exactly the
/// frames a test gives it and records every frame and the close event it receives, so tests
/// can assert the server's exact output.
final class ScriptedClient: Sendable {
    /// How long any wait may take before the test fails.
    static let timeout: Duration = .seconds(20)

    /// What the client has received and not yet consumed.
    private enum Received: Sendable {
        case frame(String)
        case closed(TransportCloseReason)
    }

    private let transport: LoopbackClientTransport
    private let inbox = Mailbox<Received>()
    private let assembler = Mutex(FrameAssembler())

    /// Connects to the loopback listener `host` naming namespace `namespace`.
    init(network: LoopbackNetwork, host: String = "server", namespace: String? = "test", lastSessionID: String? = nil)
        async
    {
        transport = LoopbackClientTransport(network: network)
        let events = transport.events
        let inbox = self.inbox
        Task {
            for await event in events {
                switch event {
                case .opened: continue
                case .frame(let frame): inbox.deliver(.frame(frame))
                case .closed(let reason): inbox.deliver(.closed(reason))
                }
            }
        }
        await transport.connect(to: ConnectionTarget(host: host, namespace: namespace, lastSessionID: lastSessionID))
    }

    /// Sends one raw frame.
    func send(_ frame: String) async {
        await transport.send(frame)
    }

    /// Sends a message, split into frames like the clients do.
    func sendMessage(_ text: String) async {
        for frame in FrameSplitter().frames(for: text) { await transport.send(frame) }
    }

    /// Closes the connection from the client side.
    func close() async {
        await transport.close()
    }

    /// The next received item, failing after ``timeout``.
    private func next(_ what: String) async throws -> Received {
        guard case .item(let item) = await inbox.next(timeout: ScriptedClient.timeout) else {
            throw ScriptTimeout(what: what)
        }
        return item
    }

    /// The next complete message, or `nil` when the connection closes first.
    func receiveUnlessClosed() async throws -> String? {
        while true {
            switch try await next("a message or the close") {
            case .frame(let frame):
                if let message = try assembler.withLock({ assembler throws(WireError) in try assembler.receive(frame) }) {
                    return message
                }
            case .closed: return nil
            }
        }
    }

    /// The next raw frame.
    func receiveFrame() async throws -> String {
        switch try await next("a frame") {
        case .frame(let frame): return frame
        case .closed(let reason):
            Issue.record("expected a frame, the connection closed: \(reason)")
            throw ScriptTimeout(what: "a frame (the connection closed)")
        }
    }

    /// The next complete message, reassembled from its frames.
    func receive() async throws -> String {
        while true {
            let frame = try await receiveFrame()
            if let message = try assembler.withLock({ assembler throws(WireError) in try assembler.receive(frame) }) {
                return message
            }
        }
    }

    /// Receives `count` messages.
    func receive(_ count: Int) async throws -> [String] {
        var messages: [String] = []
        for _ in 0..<count { messages.append(try await receive()) }
        return messages
    }

    /// Waits for the hello and returns its payload.
    func receiveHello() async throws -> JSONValue {
        let hello = try JSONParser.parse(try await receive())
        guard hello["t"] == .string("c"), let inner = hello["d"], inner["t"] == .string("h"), let payload = inner["d"]
        else {
            Issue.record("expected a hello")
            throw ScriptTimeout(what: "the hello")
        }
        return payload
    }

    /// Waits until the connection closes and returns why.
    func receiveClose() async throws -> TransportCloseReason {
        while true {
            if case .closed(let reason) = try await next("the connection to close") { return reason }
        }
    }

    /// Sends request `number` with `action` and `body` (JSON text).
    func request(_ number: Int, _ action: String, _ body: String) async {
        await sendMessage(#"{"t":"d","d":{"r":\#(number),"a":"\#(action)","b":\#(body)}}"#)
    }
}
