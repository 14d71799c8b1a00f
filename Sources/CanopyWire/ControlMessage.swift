import CanopyTree

/// A control-layer message: the payload of `{"t":"c","d":{"t":<type>,"d":<payload>}}`
/// (protocol.md §2.3).
///
/// Payload-less messages always encode an empty object as `d`, because the JavaScript client
/// ignores a control message without one.
public enum ControlMessage: Sendable, Equatable {
    /// `h`, server → client: the hello.
    case hello(Handshake)
    /// `r`, server → client: reconnect to this host.
    case reset(host: String)
    /// `s`, server → client: permanent refusal; the client stops reconnecting.
    case shutdown(reason: String)
    /// `e`, server → client: an error message for the client's log.
    case error(message: String)
    /// `p`, client → server: ping. The server answers with ``pong``.
    case ping
    /// `o`, server → client: the answer to a ping.
    case pong
    /// `a`, client → server: switch acknowledgement (long-poll upgrade only).
    case switchAcknowledgement
    /// `n`, either way: end of transmission on the primary transport (long-poll upgrade only).
    case endOfTransmission
    /// A control type this library does not know; receivers ignore it.
    case unknown(type: String, payload: JSONValue?)

    /// The inner `t` of this message.
    public var type: String {
        switch self {
        case .hello: return "h"
        case .reset: return "r"
        case .shutdown: return "s"
        case .error: return "e"
        case .ping: return "p"
        case .pong: return "o"
        case .switchAcknowledgement: return "a"
        case .endOfTransmission: return "n"
        case .unknown(let type, _): return type
        }
    }

    /// The inner object `{"t":…,"d":…}`.
    public var jsonValue: JSONValue {
        let payload: JSONValue?
        switch self {
        case .hello(let hello):
            payload = .object([
                JSONMember("ts", .int(hello.timestamp)),
                JSONMember("v", .string(hello.version)),
                JSONMember("h", .string(hello.host)),
                JSONMember("s", .string(hello.sessionID)),
            ])
        case .reset(let host): payload = .string(host)
        case .shutdown(let reason): payload = .string(reason)
        case .error(let message): payload = .string(message)
        case .ping, .pong, .switchAcknowledgement, .endOfTransmission: payload = .object([])
        case .unknown(_, let unknownPayload): payload = unknownPayload
        }
        return .members([("t", .string(type)), ("d", payload)])
    }

    /// Decodes the inner object of a control envelope.
    public init(json: JSONValue) throws(WireError) {
        let fields = try MessageFields(json, context: "control message")
        let type = try fields.string("t")
        switch type {
        case "h":
            let hello = try MessageFields(fields["d"], context: "hello payload")
            let version: String
            switch hello["v"] {
            case .string(let v)?: version = v
            case .int(let v)?: version = String(v)
            case nil, .null?: version = WireProtocol.version
            case let other?:
                throw hello.error("field \"v\" must be a string, got \(MessageFields.describe(other))")
            }
            self = .hello(
                Handshake(
                    timestamp: try hello.integer("ts"), version: version, host: try hello.string("h"),
                    sessionID: try hello.string("s")))
        case "r":
            self = .reset(host: try fields.string("d"))
        case "s":
            self = .shutdown(reason: try fields.optionalString("d") ?? "")
        case "e":
            self = .error(message: try fields.optionalString("d") ?? "")
        case "p": self = .ping
        case "o": self = .pong
        case "a": self = .switchAcknowledgement
        case "n": self = .endOfTransmission
        default: self = .unknown(type: type, payload: fields["d"])
        }
    }
}
