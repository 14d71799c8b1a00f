import CanopyTree
import CanopyWire
import Synchronization
import Testing

/// Something a scripted client waited for did not happen in time.
struct ScriptTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// What a scripted client has received and not yet consumed; one reader waits at a time.
final class ClientInbox: Sendable {
    enum Item: Sendable {
        case frame(String)
        case closed(TransportCloseReason)
    }

    private struct State: Sendable {
        var items: [Item] = []
        var waiter: CheckedContinuation<Item?, Never>?
        var waiterID = 0
    }

    private let state = Mutex(State())

    /// Hands an item to the waiting reader, or keeps it.
    func deliver(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    /// The next item, or `nil` after `timeout`.
    func next(timeout: Duration) async -> Item? {
        await withCheckedContinuation { continuation in
            let (ready, id) = state.withLock { state -> (Item?, Int) in
                if !state.items.isEmpty { return (state.items.removeFirst(), 0) }
                state.waiter = continuation
                state.waiterID += 1
                return (nil, state.waiterID)
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let waiter = self.state.withLock { state -> CheckedContinuation<Item?, Never>? in
                    guard state.waiterID == id, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume(returning: nil)
            }
        }
    }
}

/// A test client that speaks raw frames over a loopback transport: it sends exactly the
/// frames a test gives it and records every frame and the close event it receives, so tests
/// can assert the server's exact output.
final class ScriptedClient: Sendable {
    /// How long any wait may take before the test fails.
    static let timeout: Duration = .seconds(20)

    private typealias Received = ClientInbox.Item
    private let transport: LoopbackClientTransport
    private let inbox = ClientInbox()
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
        guard let item = await inbox.next(timeout: ScriptedClient.timeout) else { throw ScriptTimeout(what: what) }
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
