import CanopyServer
import CanopyStorage
import CanopyTree
import CanopyWire
import Testing

@Suite("Access policy enforcement")
struct AccessPolicyTests {
    let session = ServerSessionID("s1")
    let signedIn = ConnectionAuth(
        credential: "token", kind: .firebaseToken, authVariable: nil, actsUnauthenticated: false)

    func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    func makeNamespace() throws -> ServerNamespace {
        let store = MemoryTreeStore(root: try Node(json: try json(#"{"a":1,"s":{"x":1,"y":2},"locked":{"k":1}}"#)))
        return try ServerNamespace(name: "test", store: store, policy: SignedInPolicy(), clock: { 0 })
    }

    @Test func refusedReadsRegisterNothingAndRefusedWritesChangeNothing() async throws {
        let ns = try makeNamespace()
        let log = PushLog()
        await ns.open(session: session, sink: log.sink)
        let anonymous = ConnectionAuth.unauthenticated
        #expect(
            await ns.listen(session: session, path: "/a", query: nil, tag: nil, auth: anonymous).status
                == .permissionDenied)
        #expect(await ns.get(path: "/a", query: .object([]), auth: anonymous).status == .permissionDenied)
        #expect(log.take() == [])
        #expect(
            await ns.put(session: session, path: "/a", data: .int(2), hash: nil, auth: anonymous).status
                == .permissionDenied)
        #expect(
            await ns.put(session: session, path: "/locked/k", data: .int(2), hash: nil, auth: signedIn).status
                == .permissionDenied)
        let merge = try json(#"{"a":5,"locked/k":5}"#)
        #expect(
            await ns.merge(session: session, path: "/", children: merge, auth: signedIn).status == .permissionDenied)
        #expect(
            await ns.onDisconnectPut(session: session, path: "/locked", data: .null, auth: signedIn).status
                == .permissionDenied)
        #expect(await ns.value(at: "/a") == Node(leaf: .int(1)))
        #expect(await ns.value(at: "/locked/k") == Node(leaf: .int(1)))
        // Closing runs nothing: the refused onDisconnect was never queued.
        await ns.close(session: session)
        #expect(await ns.value(at: "/locked/k") == Node(leaf: .int(1)))
    }

    @Test func listensNoLongerReadableAreRevokedWhenAuthChanges() async throws {
        let ns = try makeNamespace()
        let log = PushLog()
        await ns.open(session: session, sink: log.sink)
        #expect(await ns.listen(session: session, path: "/a", query: nil, tag: nil, auth: signedIn).status == .ok)
        let query = try json(#"{"i":"x","l":1,"vf":"l"}"#)
        let tagged = await ns.listen(session: session, path: "/s", query: query, tag: 3, auth: signedIn)
        #expect(tagged.jsonValue.serialized() == #"{"s":"ok","d":{"w":["no_index"]}}"#)
        _ = log.take()
        await ns.reauthorize(session: session, auth: signedIn)
        #expect(log.take() == [])
        await ns.reauthorize(session: session, auth: .unauthenticated)
        #expect(log.take() == [#"c {"p":"a"}"#, #"c {"p":"s","q":[{"i":"x","l":1,"vf":"l"}]}"#])
        // Revoked listens get no more data.
        _ = await ns.put(session: session, path: "/a", data: .int(9), hash: nil, auth: signedIn)
        #expect(log.take() == [])
    }

    @Test func unauthOverTheWireRevokesBeforeItsAnswer() async throws {
        let network = LoopbackNetwork()
        let listener = try network.listen(on: "server")
        let server = CanopyServer(configuration: .init(policy: SignedInPolicy(), clock: { 0 })) { _ in
            MemoryTreeStore(root: Node(leaf: .string("root")))
        }
        let serving = Task { await server.serve(listener) }
        let client = await ScriptedClient(network: network)
        _ = try await client.receiveHello()
        await client.request(1, "q", #"{"p":"/","h":""}"#)
        #expect(
            try await client.receive()
                == #"{"t":"d","d":{"r":1,"b":{"s":"permission_denied","d":"Permission denied"}}}"#)
        await client.request(2, "auth", #"{"cred":"token"}"#)
        await client.request(3, "q", #"{"p":"/","h":""}"#)
        await client.request(4, "unauth", "{}")
        #expect(
            try await client.receive(4) == [
                #"{"t":"d","d":{"r":2,"b":{"s":"ok","d":{"auth":null,"expires":null}}}}"#,
                #"{"t":"d","d":{"a":"d","b":{"p":"/","d":"root"}}}"#,
                #"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{}}}}"#,
                #"{"t":"d","d":{"a":"c","b":{"p":"/"}}}"#,
            ])
        #expect(try await client.receive() == #"{"t":"d","d":{"r":4,"b":{"s":"ok"}}}"#)
        await client.close()
        await listener.close()
        serving.cancel()
    }
}
