import CanopyWire
import Testing

@Suite struct ConnectionTargetTests {
    @Test func buildsTheWebSocketURL() {
        #expect(
            ConnectionTarget(host: "my-db.firebaseio.com", isSecure: true).url == "wss://my-db.firebaseio.com/.ws?v=5")
        let target = ConnectionTarget(
            host: "127.0.0.1:9000", namespace: "demo-proj", lastSessionID: "b7c2",
            extraParameters: [.init("p", "1:123:web:abc")])
        #expect(target.url == "ws://127.0.0.1:9000/.ws?v=5&ns=demo-proj&ls=b7c2&p=1:123:web:abc")
    }

    @Test func parsesUpgradeRequestsLeniently() {
        let android = ConnectionRequest(host: "db.example.com", target: "/.ws?ns=db&v=5&ls=b7c2")
        #expect(android.namespace == "db")
        #expect(android.protocolVersion == "5")
        #expect(android.lastSessionID == "b7c2")
        let raw = ConnectionRequest(
            host: "h", target: "/.ws?v=5&p=1:1:web:a&ac=x%2By&tok=a+b/c=&bad=%zz&flag",
            headers: [.init("Authorization", "Bearer owner")])
        #expect(raw.parameter("p") == "1:1:web:a")
        #expect(raw.parameter("ac") == "x+y")
        #expect(raw.parameter("tok") == "a+b/c=")
        #expect(raw.parameter("bad") == "%zz")
        #expect(raw.parameter("flag") == "")
        #expect(raw.header("authorization") == "Bearer owner")
        #expect(ConnectionRequest(host: "h", target: "/.ws").namespace == nil)
        let roundTrip = ConnectionRequest(target: ConnectionTarget(host: "h", namespace: "a b&c"))
        #expect(roundTrip.namespace == "a b&c")
    }
}
