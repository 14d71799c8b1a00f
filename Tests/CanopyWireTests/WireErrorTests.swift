import CanopyTree
import CanopyWire
import Testing

/// Malformed messages become typed errors, never crashes.
@Suite struct WireErrorTests {
    func decodeError(_ text: String) -> WireError? {
        do {
            _ = try WireMessage(text: text)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ["", "garbage", "{", #"{"t":"d","d":{"r":1,"#, "[1,2", "\u{0}"])
    func notJSON(_ text: String) {
        #expect(decodeError(text)?.kind == .invalidJSON)
    }

    @Test(arguments: [
        "[]", "5", "null", #"{"d":{}}"#, #"{"t":5,"d":{}}"#, #"{"t":"x","d":{}}"#, #"{"t":"d"}"#, #"{"t":"d","d":[]}"#,
        #"{"t":"d","d":{"error":"boom"}}"#, #"{"t":"c"}"#, #"{"t":"c","d":{"d":{}}}"#,
        #"{"t":"c","d":{"t":"h","d":{"ts":"soon"}}}"#,
        #"{"t":"c","d":{"t":"h","d":{"ts":1,"v":"5","h":"x"}}}"#, #"{"t":"c","d":{"t":"r","d":{}}}"#,
        #"{"t":"d","d":{"r":"1","a":"p","b":{}}}"#, #"{"t":"d","d":{"r":1.5,"b":{"s":"ok"}}}"#,
        #"{"t":"d","d":{"r":1,"b":{"d":1}}}"#, #"{"t":"d","d":{"r":1,"b":{"s":1}}}"#, #"{"t":"d","d":{"r":1}}"#,
        #"{"t":"d","d":{"a":"d","b":{"d":1}}}"#, #"{"t":"d","d":{"a":"d","b":{"p":"a"}}}"#,
        #"{"t":"d","d":{"a":"m","b":{"p":"a","d":1}}}"#, #"{"t":"d","d":{"a":"c","b":{"p":"a","q":{}}}}"#,
        #"{"t":"d","d":{"a":"rm","b":{"p":"a","d":{}}}}"#, #"{"t":"d","d":{"a":"d","b":{"p":"a","d":1,"t":"x"}}}"#,
        #"{"t":"d","d":{"a":"ac","b":{"d":"x"}}}"#, #"{"t":"d","d":{"a":"sd","b":{}}}"#,
        #"{"t":"d","d":{"a":"d","b":7}}"#,
    ])
    func wrongShapes(_ text: String) {
        let error = decodeError(text)
        #expect(error?.kind == .malformedMessage, "\(text)")
        if !text.contains(#""r":1,"#) { #expect(error?.requestNumber == nil) }
    }

    @Test func malformedRequestBodiesCarryTheRequestNumber() {
        let cases: [(String, String)] = [
            (#"{"t":"d","d":{"r":4,"a":"p","b":{"d":1}}}"#, "\"p\""),
            (#"{"t":"d","d":{"r":4,"a":"p","b":{"p":"/a"}}}"#, "\"d\""),
            (#"{"t":"d","d":{"r":4,"a":"p","b":{"p":3,"d":1}}}"#, "string"),
            (#"{"t":"d","d":{"r":4,"a":"m","b":{"p":"/a","d":[1]}}}"#, "object"),
            (#"{"t":"d","d":{"r":4,"a":"q","b":{"p":"/a","t":"one"}}}"#, "integer"),
            (#"{"t":"d","d":{"r":4,"a":"q","b":{"p":"/a","q":"x"}}}"#, "object"),
            (#"{"t":"d","d":{"r":4,"a":"auth","b":{}}}"#, "cred"),
            (#"{"t":"d","d":{"r":4,"a":"auth","b":{"cred":"x","noauth":"yes"}}}"#, "boolean"),
            (#"{"t":"d","d":{"r":4,"a":"appcheck","b":{}}}"#, "token"),
            (#"{"t":"d","d":{"r":4,"a":"g","b":{"q":{}}}}"#, "\"p\""),
            (#"{"t":"d","d":{"r":4,"a":"p","b":"body"}}"#, "object"),
            (#"{"t":"d","d":{"r":4,"a":"zz","b":[]}}"#, "object"),
        ]
        for (text, mention) in cases {
            let error = decodeError(text)
            #expect(error?.kind == .malformedMessage, "\(text)")
            #expect(error?.requestNumber == 4, "\(text)")
            #expect(error?.message.contains(mention) == true, "\(text): \(error?.message ?? "no error")")
            if let error {
                let response = ServerResponse.rejecting(error)
                #expect(response.status == .invalidData)
                #expect(response.reason == error.message)
            }
        }
    }

    @Test func missingBodyOfAPayloadFreeRequestIsAnEmptyObject() throws {
        #expect(try WireMessage(text: #"{"t":"d","d":{"r":1,"a":"unauth"}}"#) == .request(number: 1, .unauth))
    }
}
