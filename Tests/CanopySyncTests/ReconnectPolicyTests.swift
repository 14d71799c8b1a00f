import CanopySync
import Testing

@Suite("ReconnectPolicy")
struct ReconnectPolicyTests {
    @Test("the backoff grows by the multiplier up to the maximum")
    func growth() {
        let policy = ReconnectPolicy()
        var backoff = policy.initialDelay
        var sequence: [Duration] = []
        for _ in 0..<20 {
            sequence.append(backoff)
            backoff = policy.grown(backoff)
        }
        #expect(sequence[0] == .seconds(1))
        #expect(sequence[1] == .milliseconds(1300))
        #expect(sequence[2] == .milliseconds(1690))
        #expect(sequence.last == .seconds(30))
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test("the wait is drawn from the jittered share of the backoff")
    func jitter() {
        let none = ReconnectPolicy(random: { 0 })
        let most = ReconnectPolicy(random: { 0.999_999 })
        #expect(none.wait(for: .seconds(10)) == .seconds(10))
        #expect(most.wait(for: .seconds(10)) > .seconds(4))
        #expect(most.wait(for: .seconds(10)) < .milliseconds(5001))
        let fixed = ReconnectPolicy(jitter: 0, random: { 0.7 })
        #expect(fixed.wait(for: .seconds(3)) == .seconds(3))
    }
}
