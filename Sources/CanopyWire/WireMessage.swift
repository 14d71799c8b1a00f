import CanopyTree

/// One protocol message: an envelope and what it carries (protocol.md §2.3, §3, §4).
///
/// ```
/// {"t":"c","d":{"t":…,"d":…}}             control
/// {"t":"d","d":{"r":n,"a":…,"b":{…}}}     request  (client → server)
/// {"t":"d","d":{"r":n,"b":{"s":…,"d":…}}} response (server → client)
/// {"t":"d","d":{"a":…,"b":{…}}}           push     (server → client)
/// ```
///
/// Decoding accepts every kind in either direction (the shapes are unambiguous); the
/// connection state machines decide what is acceptable where. Decoding never traps: bad text
/// throws a ``WireError``.
public enum WireMessage: Sendable, Equatable {
    /// A control-layer message.
    case control(ControlMessage)
    /// A client request with its number `r`.
    case request(number: Int64, ClientRequest)
    /// A server response to request `number`.
    case response(number: Int64, ServerResponse)
    /// A server push.
    case push(ServerPush)

    /// The envelope as a JSON value.
    public var jsonValue: JSONValue {
        switch self {
        case .control(let control):
            return .object([JSONMember("t", .string("c")), JSONMember("d", control.jsonValue)])
        case .request(let number, let request):
            return Self.dataEnvelope([
                JSONMember("r", .int(number)), JSONMember("a", .string(request.action)), JSONMember("b", request.body),
            ])
        case .response(let number, let response):
            return Self.dataEnvelope([JSONMember("r", .int(number)), JSONMember("b", response.jsonValue)])
        case .push(let push):
            return Self.dataEnvelope([JSONMember("a", .string(push.action)), JSONMember("b", push.body)])
        }
    }

    /// The message as compact JSON text, ready for framing.
    public func serialized() -> String { jsonValue.serialized() }

    /// Parses and decodes message text (one complete, reassembled message).
    public init(text: String) throws(WireError) {
        let json: JSONValue
        do throws(JSONError) {
            json = try JSONParser.parse(text)
        } catch {
            throw WireError(.invalidJSON, "message is not valid JSON: \(error)")
        }
        try self.init(json: json)
    }

    /// Decodes a parsed envelope.
    public init(json: JSONValue) throws(WireError) {
        let envelope = try MessageFields(json, context: "message envelope")
        let layer = try envelope.string("t")
        switch layer {
        case "c":
            self = .control(try ControlMessage(json: try envelope.required("d")))
        case "d":
            let data = try MessageFields(envelope["d"], context: "data message")
            let number = try data.optionalInteger("r")
            let action = try data.optionalString("a")
            switch (number, action) {
            case (let number?, let action?):
                self = .request(
                    number: number, try ClientRequest(action: action, body: data["b"], requestNumber: number))
            case (let number?, nil):
                self = .response(
                    number: number, try ServerResponse(json: try data.required("b"), requestNumber: number))
            case (nil, let action?):
                self = .push(try ServerPush(action: action, body: data["b"]))
            case (nil, nil):
                throw data.error("neither a request number \"r\" nor an action \"a\"")
            }
        default:
            throw envelope.error("unknown message layer \"\(layer)\" (expected \"c\" or \"d\")")
        }
    }

    private static func dataEnvelope(_ members: [JSONMember]) -> JSONValue {
        .object([JSONMember("t", .string("d")), JSONMember("d", .object(members))])
    }
}
