import CanopyTree
import Foundation

/// `canopy export URL [FILE]`: writes the data at URL — the whole namespace when URL is a
/// root such as `http://127.0.0.1:9000/?ns=demo` — in export format (the Firebase export:
/// plain JSON plus `.priority`, `.value` where a leaf has a priority) to FILE, or to standard
/// output. A progress bar is drawn on a terminal.
struct ExportCommand {
    private let arguments: CommandLineArguments

    /// Parses the command line.
    init(arguments: [String]) throws(CommandError) {
        let syntax = CommandLineSyntax(
            usage: """
                usage: canopy export URL [FILE] [options]
                  FILE            where to write the export (standard output when omitted or -)
                  --pretty        indent the JSON
                \(RESTClient.certificateAuthorityUsage)
                """,
            valueOptions: ["--cacert"], flags: ["--pretty"], minimumPositionals: 1, maximumPositionals: 2)
        if CanopyCommand.wantsHelp(arguments) { throw .help(syntax.usage) }
        self.arguments = try syntax.parse(arguments)
    }

    /// Downloads and writes the export.
    func run() async throws(CommandError) -> Int32 {
        let location = try DatabaseURL(arguments.positionals[0])
        let client = try RESTClient(location: location, arguments: arguments)
        var query = [URLQueryItem(name: "format", value: "export")]
        if arguments.has("--pretty") { query.append(URLQueryItem(name: "print", value: "pretty")) }
        var bar = ProgressBar(label: "export")
        var expected: Int64 = -1
        var received: Int64 = 0
        let reply = try await client.send(try client.request("GET", query: query, timeout: 600)) { event in
            switch event {
            case .response(_, let length): expected = length.map(Int64.init) ?? -1
            case .data(let bytes):
                received += Int64(bytes.count)
                bar.update(received, of: expected)
            case .sent: break
            }
        }
        bar.finish()
        var body = reply.body
        if body.last != UInt8(ascii: "\n") { body.append(UInt8(ascii: "\n")) }
        if let file = arguments.positional(1), file != "-" {
            do {
                try Data(body).write(to: URL(fileURLWithPath: file), options: .atomic)
            } catch {
                throw .failure("cannot write \(file): \(error.localizedDescription)")
            }
            Console.error(
                "canopy export: wrote \(ProgressBar.size(Int64(body.count))) from \(location.display) to \(file)")
        } else {
            FileHandle.standardOutput.write(Data(body))
        }
        return 0
    }
}
