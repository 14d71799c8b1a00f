/// Why a command failed: a usage mistake (exit status 2, with the command's usage) or a
/// failure while running (exit status 1). The message says what went wrong and what to do.
struct CommandError: Error, Sendable {
    /// The kinds of failure, each with its exit status.
    enum Kind: Sendable {
        /// The command line is wrong: an unknown option, a missing argument, a bad value.
        case usage
        /// The command could not do its work: the server is unreachable, answered an error,
        /// a file cannot be read.
        case failure
        /// `--help` was given: the usage is printed on standard output and the exit status is 0.
        case help
    }

    /// The kind of failure.
    let kind: Kind
    /// What went wrong, for a person.
    let message: String
    /// The usage text of the command, printed after a usage error.
    let usage: String?

    /// A usage error.
    static func usage(_ message: String, _ usage: String? = nil) -> CommandError {
        CommandError(kind: .usage, message: message, usage: usage)
    }

    /// The answer to `--help`: `usage` on standard output, exit status 0.
    static func help(_ usage: String) -> CommandError {
        CommandError(kind: .help, message: "", usage: usage)
    }

    /// A failure while running.
    static func failure(_ message: String) -> CommandError {
        CommandError(kind: .failure, message: message, usage: nil)
    }

    /// The process exit status for the error.
    var exitStatus: Int32 {
        switch kind {
        case .usage: 2
        case .failure: 1
        case .help: 0
        }
    }
}
