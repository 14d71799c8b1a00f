import CanopyTree
import Foundation

/// `canopy get|set|update|push|remove URL [JSON]`: one REST request, its response body
/// printed on standard output.
///
/// `set`, `update` and `push` take the JSON as an argument, or from standard input when it
/// is omitted or `-`; it is checked before anything is sent. Output: `get` prints the data,
/// `set` the data written, `update` each updated path with its new data, `push`
/// `{"name": KEY}` with the generated key, `remove` `null`.
struct DataCommand {
    /// The verb: `get`, `set`, `update`, `push` or `remove`.
    let verb: String
    private let arguments: CommandLineArguments
    private let syntax: CommandLineSyntax

    /// Parses the command line of `verb`.
    init(verb: String, arguments: [String]) throws(CommandError) {
        self.verb = verb
        let takesData = ["set", "update", "push"].contains(verb)
        var flags: Set<String> = ["--pretty", "--quiet"]
        if verb == "get" { flags.formUnion(["--export", "--shallow"]) }
        syntax = CommandLineSyntax(
            usage: """
                usage: canopy \(verb) URL\(takesData ? " [JSON|-]" : "") [options]
                  --pretty        indent the printed JSON
                  --quiet         print nothing on success
                \(verb == "get" ? Self.getOptions : "")\(RESTClient.certificateAuthorityUsage)
                URL: http://127.0.0.1:9000/path?ns=name or http://name.localhost:9000/path (https:// for a
                server started with --tls-cert); other query parameters (orderBy, limitToFirst, …) are
                passed to the server.
                """,
            valueOptions: ["--cacert"], flags: flags, minimumPositionals: 1, maximumPositionals: takesData ? 2 : 1)
        if CanopyCommand.wantsHelp(arguments) { throw .help(syntax.usage) }
        self.arguments = try syntax.parse(arguments)
    }

    /// The usage lines of the options only `get` takes.
    private static let getOptions = """
          --export        include priorities (export format)
          --shallow       print only the keys of the children

        """

    /// Sends the request and prints the answer.
    func run() async throws(CommandError) -> Int32 {
        let client = try RESTClient(location: try DatabaseURL(arguments.positionals[0]), arguments: arguments)
        var query: [URLQueryItem] = []
        if arguments.has("--quiet") {
            query.append(URLQueryItem(name: "print", value: "silent"))
        } else if arguments.has("--pretty") {
            query.append(URLQueryItem(name: "print", value: "pretty"))
        }
        if arguments.has("--export") { query.append(URLQueryItem(name: "format", value: "export")) }
        if arguments.has("--shallow") { query.append(URLQueryItem(name: "shallow", value: "true")) }
        let method: String
        var body: [UInt8]?
        switch verb {
        case "get": method = "GET"
        case "set": method = "PUT"
        case "update": method = "PATCH"
        case "push": method = "POST"
        default: method = "DELETE"
        }
        if method == "PUT" || method == "PATCH" || method == "POST" {
            let data = try Self.data(from: arguments.positional(1), usage: syntax.usage)
            if method == "PATCH" {
                guard case .object = data.value else {
                    throw .usage("update takes a JSON object whose keys are paths relative to URL", syntax.usage)
                }
            }
            body = data.bytes
        }
        let reply = try await client.send(try client.request(method, query: query, body: body))
        if !arguments.has("--quiet") {
            var text = reply.text
            while text.hasSuffix("\n") { text.removeLast() }
            Console.output(text)
        }
        return 0
    }

    /// The JSON of a write: `argument`, or standard input when it is nil or `-`; checked.
    static func data(from argument: String?, usage: String) throws(CommandError) -> (bytes: [UInt8], value: JSONValue) {
        let bytes: [UInt8]
        let source: String
        if let argument, argument != "-" {
            bytes = Array(argument.utf8)
            source = "the JSON argument"
        } else {
            bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
            source = "standard input"
        }
        do {
            return (bytes, try JSONParser.parse(bytes))
        } catch {
            throw .usage("\(source) is not valid JSON: \(error)", usage)
        }
    }
}
