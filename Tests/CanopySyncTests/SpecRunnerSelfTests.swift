import CanopySync
import CanopyTree
import Testing

/// Checks that the conformance runner detects wrong expectations, so a passing case means
/// something.
@Suite("Conformance runner detects mismatches")
struct SpecRunnerSelfTests {
    private func run(_ text: String) throws {
        let steps = try JSONParser.parse(text)
        guard case .array(let items) = steps else {
            Issue.record("test JSON is not an array")
            return
        }
        try SpecCaseRunner(prefix: .root).run(SyncPointSpec.Case(name: "self-test", steps: items))
    }

    private let listen = #"{"type": "listen", "path": "a", "events": []}"#

    @Test func matchingExpectationPasses() throws {
        try run(
            #"[\#(listen), {"type": "serverUpdate", "path": "a", "data": {"x": 1}, "events": ["#
                + #"{"path": "a", "type": "child_added", "name": "x", "prevName": null, "data": 1},"#
                + #"{"path": "a", "type": "value", "data": {"x": 1}}]}]"#)
    }

    @Test func wrongDataFails() {
        #expect(throws: SpecError.self) {
            try run(
                #"[\#(listen), {"type": "serverUpdate", "path": "a", "data": {"x": 1}, "events": ["#
                    + #"{"path": "a", "type": "child_added", "name": "x", "prevName": null, "data": 2},"#
                    + #"{"path": "a", "type": "value", "data": {"x": 1}}]}]"#)
        }
    }

    @Test func missingEventFails() {
        #expect(throws: SpecError.self) {
            try run(
                #"[\#(listen), {"type": "serverUpdate", "path": "a", "data": {"x": 1}, "events": ["#
                    + #"{"path": "a", "type": "value", "data": {"x": 1}}]}]"#)
        }
    }

    @Test func wrongPreviousKeyFails() {
        #expect(throws: SpecError.self) {
            try run(
                #"[\#(listen), {"type": "serverUpdate", "path": "a", "data": {"x": 1, "y": 2}, "events": ["#
                    + #"{"path": "a", "type": "child_added", "name": "x", "prevName": null, "data": 1},"#
                    + #"{"path": "a", "type": "child_added", "name": "y", "prevName": null, "data": 2},"#
                    + #"{"path": "a", "type": "value", "data": {"x": 1, "y": 2}}]}]"#)
        }
    }

    @Test func wrongListenerPathFails() {
        #expect(throws: SpecError.self) {
            try run(
                #"[\#(listen), {"type": "serverUpdate", "path": "a", "data": 5, "events": ["#
                    + #"{"path": "b", "type": "value", "data": 5}]}]"#)
        }
    }

    @Test func listenProviderRejectsDuplicateStartsAndUnknownStops() {
        let provider = RecordingListenProvider()
        let query = QuerySpec.defaultQuery(at: Path("a"))
        _ = provider.startListening(query, tag: nil, hash: { "" }, onComplete: { _ in [] })
        #expect(provider.takeFailures().isEmpty)
        _ = provider.startListening(query, tag: nil, hash: { "" }, onComplete: { _ in [] })
        #expect(provider.takeFailures().count == 1)
        provider.stopListening(query, tag: nil)
        provider.stopListening(query, tag: nil)
        #expect(provider.takeFailures().count == 1)
    }
}
