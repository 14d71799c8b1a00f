import CanopySync

/// The conformance runner's registration: answers every event type, never cancels.
final class SpecRegistration: EventRegistration {
    /// The spec's `callbackId`, or `nil` for an anonymous listen.
    let callbackId: Int?

    init(callbackId: Int?) { self.callbackId = callbackId }

    func responds(to type: EventType) -> Bool { true }

    var receivesCancel: Bool { false }
}
