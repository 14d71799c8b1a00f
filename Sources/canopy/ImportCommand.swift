import CanopyTree
import Foundation

/// `canopy import URL FILE`: replaces the data at URL — the whole namespace when URL is a
/// root — with the JSON in FILE (export format or plain JSON; standard input for `-`). The
/// file is checked before anything is sent; a progress bar is drawn on a terminal.
struct ImportCommand {
    private let arguments: CommandLineArguments
    private let usage: String

    /// Parses the command line.
    init(arguments: [String]) throws(CommandError) {
        let syntax = CommandLineSyntax(
            usage: """
                usage: canopy import URL FILE [options]
                  FILE            an export (or any JSON) to write at URL, replacing what is there; - for stdin
                \(RESTClient.certificateAuthorityUsage)
                """,
            valueOptions: ["--cacert"], flags: [], minimumPositionals: 2, maximumPositionals: 2)
        if CanopyCommand.wantsHelp(arguments) { throw .help(syntax.usage) }
        self.arguments = try syntax.parse(arguments)
        self.usage = syntax.usage
    }

    /// Reads, checks and uploads the file.
    func run() async throws(CommandError) -> Int32 {
        let location = try DatabaseURL(arguments.positionals[0])
        let file = arguments.positionals[1]
        let bytes: [UInt8]
        if file == "-" {
            bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        } else {
            do {
                bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                throw .failure("cannot read \(file): \(error.localizedDescription)")
            }
        }
        do {
            _ = try Node(json: try JSONParser.parse(bytes))
        } catch {
            throw .failure("\(file == "-" ? "standard input" : file) is not importable JSON: \(error)")
        }
        let client = try RESTClient(location: location, arguments: arguments)
        var bar = ProgressBar(label: "import")
        let request = try client.request(
            "PUT", query: [URLQueryItem(name: "print", value: "silent")], body: bytes, timeout: 600)
        _ = try await client.send(request) { event in
            if case .sent(let done, let total) = event { bar.update(Int64(done), of: Int64(total)) }
        }
        bar.finish()
        Console.error("canopy import: wrote \(ProgressBar.size(Int64(bytes.count))) to \(location.display)")
        return 0
    }
}
