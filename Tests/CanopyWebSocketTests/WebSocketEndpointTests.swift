import CanopyWire
import Testing

@testable import CanopyWebSocket

@Suite struct WebSocketEndpointTests {
    @Test func endpointFromConnectionTargetKeepsTheDatabasePath() throws {
        let target = ConnectionTarget(
            host: "127.0.0.1:9000", namespace: "demo-proj", lastSessionID: "b7c2",
            extraParameters: [.init("p", "1:123:web:abc")])
        let endpoint = try WebSocketEndpoint(target: target)
        #expect(endpoint.host == "127.0.0.1")
        #expect(endpoint.port == 9000)
        #expect(!endpoint.isSecure)
        #expect(endpoint.path == "/.ws")
        #expect(
            endpoint.queryItems.map { "\($0.name)=\($0.value)" } == [
                "v=5", "ns=demo-proj", "ls=b7c2", "p=1:123:web:abc",
            ])
        #expect(endpoint.url == "ws://127.0.0.1:9000/.ws?v=5&ns=demo-proj&ls=b7c2&p=1%3A123%3Aweb%3Aabc")
        #expect(endpoint.hostHeader == "127.0.0.1:9000")
    }

    @Test func secureTargetWithoutPortUses443() throws {
        let endpoint = try WebSocketEndpoint(target: ConnectionTarget(host: "db.example.com", isSecure: true))
        #expect(endpoint.port == 443)
        #expect(endpoint.isSecure)
        #expect(endpoint.hostHeader == "db.example.com")
        #expect(endpoint.url == "wss://db.example.com/.ws?v=5")
    }

    @Test func urlsParseWithDefaultsAndIPv6() throws {
        let plain = try WebSocketEndpoint(url: "ws://example.org/chat?room=a%20b")
        #expect(plain.port == 80)
        #expect(plain.path == "/chat")
        #expect(plain.queryItems == [HTTPQueryItem(name: "room", value: "a b")])
        let secure = try WebSocketEndpoint(url: "WSS://[::1]:8443")
        #expect(secure.host == "::1")
        #expect(secure.port == 8443)
        #expect(secure.isSecure)
        #expect(secure.path == "/")
        #expect(secure.hostHeader == "[::1]:8443")
    }

    @Test func badURLsAreTypedErrors() {
        for bad in ["example.org", "ftp://example.org", "ws://", "ws://host:0", "ws://host:99999", "ws://[::1"] {
            #expect(throws: WebSocketError.invalidURL(bad)) { try WebSocketEndpoint(url: bad) }
        }
    }

    @Test func queryStringRoundTrips() {
        let items = [HTTPQueryItem(name: "orderBy", value: #""$key""#), HTTPQueryItem(name: "a&b", value: "x=y z")]
        let encoded = QueryString.encode(items)
        #expect(encoded == "orderBy=%22%24key%22&a%26b=x%3Dy%20z")
        #expect(QueryString.decode(encoded) == items)
        #expect(
            QueryString.decode("a=1&&b&c=%zz") == [
                HTTPQueryItem(name: "a", value: "1"), HTTPQueryItem(name: "b", value: ""),
                HTTPQueryItem(name: "c", value: "%zz"),
            ])
        let request = HTTPRequest(method: "GET", path: "/x.json", queryItems: items)
        #expect(request.query == encoded)
        #expect(request.queryValue("a&b") == "x=y z")
    }
}
