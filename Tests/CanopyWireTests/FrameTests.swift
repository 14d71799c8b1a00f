import CanopyTree
import CanopyWire
import Testing

/// Splitting and reassembly (protocol.md §2.2).
@Suite struct FrameTests {
    /// A put whose serialized form is about `size` UTF-16 code units, with non-ASCII text.
    func bigMessage(size: Int) -> WireMessage {
        let unit = "abcdé😀xyz "  // includes a two-byte scalar and a surrogate pair
        let text = String(repeating: unit, count: size / unit.utf16.count + 1)
        return .request(number: 1, .put(path: "/big", data: .string(text), hash: nil))
    }

    @Test func shortMessagesAreOneFrame() {
        let message = WireMessage.control(.pong).serialized()
        #expect(FrameSplitter().frames(for: message) == [message])
        let exact = String(repeating: "x", count: 16384)
        #expect(FrameSplitter().frames(for: exact) == [exact])
    }

    @Test func splitsAHundredKilobyteMessageAndReassemblesIt() throws {
        let message = bigMessage(size: 100_000)
        let text = message.serialized()
        let frames = FrameSplitter().frames(for: text)
        let chunkCount = try #require(Int(frames[0]))
        #expect(chunkCount == frames.count - 1)
        #expect(
            chunkCount == (text.utf16.count + 16383) / 16384 || chunkCount == (text.utf16.count + 16383) / 16384 + 1)
        for chunk in frames.dropFirst() {
            #expect(chunk.utf16.count <= 16384)
            #expect(!chunk.isEmpty)
        }
        #expect(frames.dropFirst().joined() == text)

        var assembler = FrameAssembler()
        var completed: [String] = []
        for frame in frames {
            if let done = try assembler.receive(frame) { completed.append(done) }
        }
        #expect(completed.count == 1)
        #expect(try WireMessage(text: completed[0]) == message)
        #expect(!assembler.isCollecting)
    }

    @Test func neverCutsASurrogatePair() {
        let text = String(repeating: "😀", count: 50)  // 100 UTF-16 units
        let frames = FrameSplitter(maxFrameSize: 3).frames(for: text)
        #expect(frames[0] == "50")
        for chunk in frames.dropFirst() { #expect(chunk == "😀") }
    }

    @Test func countNeverExceedsTheLimit() {
        let text = String(repeating: "a", count: 25_000)
        let frames = FrameSplitter(maxFrameSize: 1).frames(for: text)
        let count = Int(frames[0]) ?? 0
        #expect(count <= 9999)
        #expect(count == frames.count - 1)
        #expect(frames.dropFirst().joined() == text)
        #expect(!frames.contains("0"))
        // Same with a custom limit and surrogate pairs that resist even splits.
        let pairs = String(repeating: "😀", count: 1000)
        let limited = FrameSplitter(maxFrameSize: 1, maxFrameCount: 7).frames(for: pairs)
        #expect((Int(limited[0]) ?? 99) <= 7)
        #expect(limited.dropFirst().joined() == pairs)
    }

    @Test func keepalivesAreIgnoredAndMessagesPassThrough() throws {
        var assembler = FrameAssembler()
        #expect(try assembler.receive("0") == nil)
        #expect(!assembler.isCollecting)
        #expect(try assembler.receive(#"{"t":"c","d":{"t":"p","d":{}}}"#) == #"{"t":"c","d":{"t":"p","d":{}}}"#)
        // A count frame collects that many frames, whatever they look like.
        #expect(try assembler.receive("3") == nil)
        #expect(assembler.isCollecting)
        #expect(try assembler.receive("{\"t\":") == nil)
        #expect(try assembler.receive("12") == nil)
        #expect(try assembler.receive("}") == "{\"t\":12}")
    }

    @Test func countRecognition() {
        #expect(FrameAssembler.chunkCount(of: "3") == 3)
        #expect(FrameAssembler.chunkCount(of: "999999") == 999_999)
        #expect(FrameAssembler.chunkCount(of: "1000000") == nil)  // 7 characters: a message
        #expect(FrameAssembler.chunkCount(of: "-3") == nil)
        #expect(FrameAssembler.chunkCount(of: "") == nil)
        #expect(FrameAssembler.chunkCount(of: "1e3") == nil)
        #expect(FrameAssembler.chunkCount(of: "٣") == nil)  // Arabic-Indic digit
    }

    @Test func badCountsAndOverlongMessagesAreTypedErrors() throws {
        var assembler = FrameAssembler()
        #expect(throws: WireError(.malformedFrame, "chunk count 10000 exceeds the limit of 9999 frames")) {
            try assembler.receive("10000")
        }
        // The assembler is still usable.
        #expect(try assembler.receive("{}") == "{}")

        var small = FrameAssembler(maxMessageBytes: 10)
        #expect(try small.receive("3") == nil)
        #expect(try small.receive("123456") == nil)
        do {
            _ = try small.receive("123456")
            Issue.record("expected messageTooLarge")
        } catch {
            #expect(error.kind == .messageTooLarge)
        }
        // The rest of the oversized message is skipped; the next message decodes.
        #expect(try small.receive("xyz") == nil)
        #expect(!small.isCollecting)
        #expect(try small.receive("{}") == "{}")
        do {
            _ = try small.receive(String(repeating: "y", count: 11))
            Issue.record("expected messageTooLarge")
        } catch {
            #expect(error.kind == .messageTooLarge)
        }
    }

    @Test func halfMessagesFailToDecode() throws {
        let frames = FrameSplitter(maxFrameSize: 10).frames(for: WireMessage.control(.ping).serialized())
        // Delivering only the chunks without their count: each is a (broken) message.
        for chunk in frames.dropFirst() {
            #expect(throws: WireError.self) { try WireMessage(text: chunk) }
        }
    }
}
