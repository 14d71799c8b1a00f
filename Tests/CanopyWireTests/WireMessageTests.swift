import CanopyTree
import CanopyWire
import Testing

/// Round trips against exact strings from protocol.md (§2.3, §2.4, §3, §4, §13).
@Suite struct WireMessageTests {
    /// Decodes `text`, checks it equals `expected`, and checks `expected` encodes back to `text`.
    func roundTrip(_ text: String, _ expected: WireMessage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decoded = try WireMessage(text: text)
        #expect(decoded == expected, sourceLocation: sourceLocation)
        #expect(expected.serialized() == text, sourceLocation: sourceLocation)
    }

    func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    @Test func workedSession() throws {
        try roundTrip(
            #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1:9000","s":"3fa9c0d1"}}}"#,
            .control(.hello(Handshake(timestamp: 1_700_000_000_000, host: "127.0.0.1:9000", sessionID: "3fa9c0d1"))))
        try roundTrip(
            #"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.admin_node.12-0-0":1}}}}"#,
            .request(number: 1, .stats(counters: try json(#"{"sdk.admin_node.12-0-0":1}"#))))
        try roundTrip(
            #"{"t":"d","d":{"r":2,"a":"gauth","b":{"cred":"owner"}}}"#,
            .request(number: 2, .googleAuth(AuthCredential(credential: "owner"))))
        try roundTrip(
            #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/rooms/r1","h":""}}}"#,
            .request(number: 3, .listen(ListenRequest(path: "rooms/r1", hash: ""))))
        try roundTrip(#"{"t":"d","d":{"r":1,"b":{"s":"ok"}}}"#, .response(number: 1, .ok))
        try roundTrip(
            #"{"t":"d","d":{"r":2,"b":{"s":"ok","d":{"auth":null,"expires":null}}}}"#,
            .response(number: 2, ServerResponse(status: .ok, data: try json(#"{"auth":null,"expires":null}"#))))
        try roundTrip(
            #"{"t":"d","d":{"a":"d","b":{"p":"rooms/r1","d":{"title":"hi"}}}}"#,
            .push(.data(path: "rooms/r1", data: try json(#"{"title":"hi"}"#), tag: nil)))
        try roundTrip(
            #"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{}}}}"#,
            .response(number: 3, ServerResponse(status: .ok, data: .object([]))))
        try roundTrip(
            #"{"t":"d","d":{"r":4,"a":"p","b":{"p":"/rooms/r1/title","d":"yo"}}}"#,
            .request(number: 4, .put(path: "/rooms/r1/title", data: .string("yo"), hash: nil)))
        try roundTrip(
            #"{"t":"d","d":{"a":"d","b":{"p":"rooms/r1/title","d":"yo"}}}"#,
            .push(.data(path: "rooms/r1/title", data: .string("yo"), tag: nil)))
        try roundTrip(
            #"{"t":"d","d":{"r":5,"a":"q","b":{"p":"/counter","h":"+r5aI9HvKKagELki8SYKBk0q7D4="}}}"#,
            .request(number: 5, .listen(ListenRequest(path: "counter", hash: "+r5aI9HvKKagELki8SYKBk0q7D4="))))
        try roundTrip(
            #"{"t":"d","d":{"r":6,"a":"p","b":{"p":"/counter","d":11,"h":"+r5aI9HvKKagELki8SYKBk0q7D4="}}}"#,
            .request(number: 6, .put(path: "counter", data: .int(11), hash: "+r5aI9HvKKagELki8SYKBk0q7D4=")))
        try roundTrip(
            #"{"t":"d","d":{"r":6,"b":{"s":"datastale","d":"hash mismatch"}}}"#,
            .response(number: 6, .failure(.dataStale, "hash mismatch")))
        try roundTrip(
            #"{"t":"d","d":{"r":8,"a":"q","b":{"p":"/scores","q":{"l":2,"vf":"r","i":"points"},"t":1,"h":""}}}"#,
            .request(
                number: 8,
                .listen(
                    ListenRequest(path: "scores", query: try json(#"{"l":2,"vf":"r","i":"points"}"#), tag: 1, hash: ""))
            ))
        try roundTrip(
            #"{"t":"d","d":{"a":"d","b":{"p":"scores","d":{"bob":{"points":40},"eve":{"points":90}},"t":1}}}"#,
            .push(.data(path: "scores", data: try json(#"{"bob":{"points":40},"eve":{"points":90}}"#), tag: 1)))
    }

    @Test func controlMessages() throws {
        try roundTrip(#"{"t":"c","d":{"t":"p","d":{}}}"#, .control(.ping))
        try roundTrip(#"{"t":"c","d":{"t":"o","d":{}}}"#, .control(.pong))
        try roundTrip(
            #"{"t":"c","d":{"t":"r","d":"other.example.com:9000"}}"#, .control(.reset(host: "other.example.com:9000")))
        try roundTrip(
            #"{"t":"c","d":{"t":"s","d":"namespace disabled"}}"#, .control(.shutdown(reason: "namespace disabled")))
        try roundTrip(#"{"t":"c","d":{"t":"e","d":"oops"}}"#, .control(.error(message: "oops")))
        try roundTrip(#"{"t":"c","d":{"t":"a","d":{}}}"#, .control(.switchAcknowledgement))
        try roundTrip(#"{"t":"c","d":{"t":"n","d":{}}}"#, .control(.endOfTransmission))
        try roundTrip(#"{"t":"c","d":{"t":"zz","d":[1]}}"#, .control(.unknown(type: "zz", payload: .array([.int(1)]))))
        // A pong without its payload is tolerated when decoding.
        #expect(try WireMessage(text: #"{"t":"c","d":{"t":"o"}}"#) == .control(.pong))
    }

    @Test func everyRequestAction() throws {
        try roundTrip(
            #"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"tok","authvar":{"uid":"u1"},"noauth":true}}}"#,
            .request(
                number: 1,
                .auth(
                    AuthCredential(
                        credential: "tok", authVariable: try json(#"{"uid":"u1"}"#), actsUnauthenticated: true))))
        try roundTrip(#"{"t":"d","d":{"r":2,"a":"unauth","b":{}}}"#, .request(number: 2, .unauth))
        try roundTrip(
            #"{"t":"d","d":{"r":3,"a":"appcheck","b":{"token":"ac"}}}"#, .request(number: 3, .appCheck(token: "ac")))
        try roundTrip(#"{"t":"d","d":{"r":4,"a":"unappeck","b":{}}}"#, .request(number: 4, .unappCheck))
        try roundTrip(
            #"{"t":"d","d":{"r":5,"a":"n","b":{"p":"/scores","q":{"l":2},"t":1}}}"#,
            .request(number: 5, .unlisten(path: "scores", query: try json(#"{"l":2}"#), tag: 1)))
        try roundTrip(
            #"{"t":"d","d":{"r":6,"a":"n","b":{"p":"/"}}}"#,
            .request(number: 6, .unlisten(path: .root, query: nil, tag: nil)))
        try roundTrip(
            #"{"t":"d","d":{"r":7,"a":"m","b":{"p":"/","d":{"a/b":1,"c":null}}}}"#,
            .request(number: 7, .merge(path: .root, data: try json(#"{"a/b":1,"c":null}"#))))
        try roundTrip(
            #"{"t":"d","d":{"r":8,"a":"o","b":{"p":"/presence/u1","d":null}}}"#,
            .request(number: 8, .onDisconnectPut(path: "presence/u1", data: .null)))
        try roundTrip(
            #"{"t":"d","d":{"r":9,"a":"om","b":{"p":"/u","d":{"last":{".sv":"timestamp"}}}}}"#,
            .request(number: 9, .onDisconnectMerge(path: "u", data: try json(#"{"last":{".sv":"timestamp"}}"#))))
        try roundTrip(
            #"{"t":"d","d":{"r":10,"a":"oc","b":{"p":"/u","d":null}}}"#,
            .request(number: 10, .onDisconnectCancel(path: "u")))
        try roundTrip(
            #"{"t":"d","d":{"r":11,"a":"g","b":{"p":"/a","q":{}}}}"#,
            .request(number: 11, .get(path: "a", query: .object([]))))
        try roundTrip(
            #"{"t":"d","d":{"r":12,"a":"p","b":{"p":"/x/.priority","d":5}}}"#,
            .request(number: 12, .put(path: "x/.priority", data: .int(5), hash: nil)))
        try roundTrip(
            #"{"t":"d","d":{"r":13,"a":"q","b":{"p":"/big","h":"abc","ch":{"ps":["b"],"hs":["S0C9uofeev2oaEPPFbZ7iMskq6U=",""]}}}}"#,
            .request(
                number: 13,
                .listen(
                    ListenRequest(
                        path: "big", hash: "abc",
                        compoundHash: try json(#"{"ps":["b"],"hs":["S0C9uofeev2oaEPPFbZ7iMskq6U=",""]}"#)))))
        // An unknown action decodes (so a server can answer it) and re-encodes unchanged.
        try roundTrip(
            #"{"t":"d","d":{"r":14,"a":"l","b":{"p":"/a"}}}"#,
            .request(number: 14, .unknown(action: "l", body: try json(#"{"p":"/a"}"#))))
    }

    @Test func everyPush() throws {
        try roundTrip(
            #"{"t":"d","d":{"a":"m","b":{"p":"rooms","d":{"r1/title":"x","r2":null},"t":3}}}"#,
            .push(.merge(path: "rooms", data: try json(#"{"r1/title":"x","r2":null}"#), tag: 3)))
        try roundTrip(
            #"{"t":"d","d":{"a":"rm","b":{"p":"a","d":[{"s":"b","m":{"c":1}}]}}}"#,
            .push(.rangeMerge(path: "a", ranges: try json(#"[{"s":"b","m":{"c":1}}]"#), tag: nil)))
        try roundTrip(
            #"{"t":"d","d":{"a":"c","b":{"p":"secret"}}}"#, .push(.listenRevoked(path: "secret", queries: nil)))
        try roundTrip(
            #"{"t":"d","d":{"a":"c","b":{"p":"scores","q":[{"l":2,"vf":"r"}]}}}"#,
            .push(.listenRevoked(path: "scores", queries: try json(#"[{"l":2,"vf":"r"}]"#))))
        try roundTrip(
            #"{"t":"d","d":{"a":"ac","b":{"s":"expired_token","d":"Auth token is expired."}}}"#,
            .push(.authRevoked(status: .expiredToken, reason: "Auth token is expired.")))
        try roundTrip(
            #"{"t":"d","d":{"a":"apc","b":{"s":"invalid_token","d":"bad"}}}"#,
            .push(.appCheckRevoked(status: .invalidToken, reason: "bad")))
        try roundTrip(
            #"{"t":"d","d":{"a":"sd","b":{"msg":"line1\nline2"}}}"#, .push(.securityDebug(message: "line1\nline2")))
        try roundTrip(
            #"{"t":"d","d":{"a":"d","b":{"p":"/","d":null}}}"#, .push(.data(path: .root, data: .null, tag: nil)))
    }

    @Test func pathsDecodeWithOrWithoutSlashAndEncodePerDirection() throws {
        let client = try WireMessage(text: #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"a/b","d":1}}}"#)
        #expect(client == .request(number: 1, .put(path: "/a/b", data: .int(1), hash: nil)))
        #expect(client.serialized().contains(#""p":"/a/b""#))
        let server = try WireMessage(text: #"{"t":"d","d":{"a":"d","b":{"p":"/a/b","d":1}}}"#)
        #expect(server == .push(.data(path: "a/b", data: .int(1), tag: nil)))
        #expect(server.serialized().contains(#""p":"a/b""#))
    }

    @Test func responsesKeepExplicitNullData() throws {
        try roundTrip(
            #"{"t":"d","d":{"r":9,"b":{"s":"ok","d":null}}}"#,
            .response(number: 9, ServerResponse(status: .ok, data: .null)))
        try roundTrip(
            #"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{"w":["no_index"]}}}}"#,
            .response(number: 3, ServerResponse(status: .ok, data: try json(#"{"w":["no_index"]}"#))))
    }

    @Test func statusStrings() throws {
        let known: [(StatusCode, String)] = [
            (.ok, "ok"), (.permissionDenied, "permission_denied"), (.dataStale, "datastale"),
            (.expiredToken, "expired_token"), (.invalidToken, "invalid_token"), (.unavailable, "unavailable"),
            (.tooBig, "too_big"), (.writeTooBig, "write_too_big"), (.failure, "failure"),
            (.invalidData, "invalid_data"),
        ]
        for (status, raw) in known {
            #expect(status.rawValue == raw)
            let message = try WireMessage(text: #"{"t":"d","d":{"r":1,"b":{"s":"\#(raw)","d":"why"}}}"#)
            #expect(message == .response(number: 1, .failure(status, "why")))
        }
        // Unknown statuses survive a round trip.
        try roundTrip(
            #"{"t":"d","d":{"r":1,"b":{"s":"brand_new_status","d":"x"}}}"#,
            .response(number: 1, .failure(StatusCode("brand_new_status"), "x")))
        #expect(StatusCode.ok.isOK)
        #expect(!StatusCode.dataStale.isOK)
    }

    @Test func integralDoublesAreAcceptedAsNumbers() throws {
        let message = try WireMessage(text: #"{"t":"d","d":{"r":7.0,"a":"q","b":{"p":"/a","q":{},"t":2.0,"h":""}}}"#)
        #expect(message == .request(number: 7, .listen(ListenRequest(path: "a", query: .object([]), tag: 2, hash: ""))))
    }
}
