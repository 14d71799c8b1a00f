import CanopyTree
import Foundation

/// `canopy listen URL`: opens a Server-Sent Events stream at the location and prints each
/// change as one JSON line, `{"event": "put"|"patch", "path": "/…", "data": …}`, the first
/// being a `put` of the whole current value at `/`. Runs until interrupted, until the server
/// ends the stream (exit 1), or until the location stops being readable (`cancel`,
/// `auth_revoked`: the event is printed, then exit 1).
struct ListenCommand {
    private let arguments: CommandLineArguments

    /// Parses the command line.
    init(arguments: [String]) throws(CommandError) {
        let syntax = CommandLineSyntax(
            usage: """
                usage: canopy listen URL [options]
                  --export        include priorities (export format)
                \(RESTClient.certificateAuthorityUsage)
                Prints one JSON line per change: {"event":"put"|"patch","path":"/…","data":…}.
                """,
            valueOptions: ["--cacert"], flags: ["--export"], minimumPositionals: 1, maximumPositionals: 1)
        if CanopyCommand.wantsHelp(arguments) { throw .help(syntax.usage) }
        self.arguments = try syntax.parse(arguments)
    }

    /// Streams until the stream ends or the process is interrupted.
    func run() async throws(CommandError) -> Int32 {
        let client = try RESTClient(location: try DatabaseURL(arguments.positionals[0]), arguments: arguments)
        let query = arguments.has("--export") ? [URLQueryItem(name: "format", value: "export")] : []
        let request = try client.request("GET", query: query, accept: "text/event-stream", timeout: 24 * 3600)
        var reader = ServerSentEventReader()
        var status = 0
        var errorBody: [UInt8] = []
        do {
            for try await event in request.start() {
                switch event {
                case .response(let code, _):
                    status = code
                case .data(let bytes) where (200..<300).contains(status):
                    for received in reader.read(bytes) {
                        if let ending = try Self.print(received) { throw ending }
                    }
                case .data(let bytes):
                    errorBody.append(contentsOf: bytes)
                case .sent:
                    break
                }
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw client.unreachable(error)
        }
        guard (200..<300).contains(status) else { throw RESTClient.failure(status: status, body: errorBody) }
        throw .failure("the server ended the stream")
    }

    /// Prints a `put` or `patch` as a JSON line; answers the error that ends the command for
    /// `cancel` and `auth_revoked`; ignores `keep-alive`.
    private static func print(_ event: ServerSentEventReader.Event) throws(CommandError) -> CommandError? {
        switch event.name {
        case "put", "patch":
            let payload: JSONValue
            do {
                payload = try JSONParser.parse(event.data)
            } catch {
                throw .failure("the server sent an unreadable \(event.name) event: \(error)")
            }
            var members = [JSONMember("event", .string(event.name))]
            if case .object(let fields) = payload {
                members += fields
            } else {
                members.append(JSONMember("data", payload))
            }
            Console.output(JSONValue.object(members).serialized())
            return nil
        case "cancel":
            Console.output(#"{"event":"cancel"}"#)
            return .failure("the server cancelled the stream: the location is no longer readable")
        case "auth_revoked":
            Console.output(#"{"event":"auth_revoked"}"#)
            return .failure("the server ended the stream: the credential is no longer valid")
        default:
            return nil
        }
    }
}
