/// The `canopy` command: dispatches to a subcommand and turns its errors into a message and an
/// exit status (0 success, 1 failure, 2 usage error).
enum CanopyCommand {
    /// The version the tool reports.
    static let version = "0.1.0"

    /// The overall usage text.
    static let usage = """
        usage: canopy <command> [options]

        Server:
          serve                      run a Canopy server (websockets, REST and SSE on one port)

        Data (URL like http://127.0.0.1:9000/path?ns=name or http://name.localhost:9000/path):
          get URL                    print the JSON at URL
          set URL [JSON]             replace the data at URL (JSON from stdin when omitted or -)
          update URL [JSON]          update the children of URL named in a JSON object
          push URL [JSON]            add a child with a generated key below URL
          remove URL                 delete the data at URL
          listen URL                 print changes at URL as JSON lines until interrupted
          export URL [FILE]          write a namespace (or a location) in export format
          import URL FILE            replace a namespace (or a location) with an export file

        Run `canopy <command> --help` for a command's options.
        """

    /// Runs the command line `arguments` (without the program name) and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first else {
            Console.error(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do throws(CommandError) {
            switch name {
            case "serve":
                return try await ServeCommand(arguments: rest).run()
            case "get", "set", "update", "push", "remove":
                return try await DataCommand(verb: name, arguments: rest).run()
            case "listen":
                return try await ListenCommand(arguments: rest).run()
            case "export":
                return try await ExportCommand(arguments: rest).run()
            case "import":
                return try await ImportCommand(arguments: rest).run()
            case "--version", "version":
                Console.output("canopy \(version)")
                return 0
            case "--help", "-h", "help":
                Console.output(usage)
                return 0
            default:
                throw .usage("unknown command \(name)", usage)
            }
        } catch {
            if error.kind == .help, let usage = error.usage {
                Console.output(usage)
                return 0
            }
            Console.error("canopy \(name): \(error.message)")
            if let usage = error.usage { Console.error(usage) }
            return error.exitStatus
        }
    }

    /// Whether `arguments` ask for help (`--help` or `-h` before any `--`).
    static func wantsHelp(_ arguments: [String]) -> Bool {
        for word in arguments {
            if word == "--" { return false }
            if word == "--help" || word == "-h" { return true }
        }
        return false
    }
}
