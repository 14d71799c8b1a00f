import Foundation

/// The process's standard output and standard error, written unbuffered so that lines reach
/// a pipe as soon as they are printed (scripts and tests wait on them).
enum Console {
    /// Writes `text` followed by a newline to standard output.
    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` followed by a newline to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes `text` as is to standard error (for progress bars that redraw a line).
    static func errorFragment(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether standard error is a terminal (progress bars are drawn only then).
    static var errorIsTerminal: Bool {
        isatty(STDERR_FILENO) != 0
    }

    /// Whether standard output is a terminal.
    static var outputIsTerminal: Bool {
        isatty(STDOUT_FILENO) != 0
    }

    /// A log line for the server: an ISO 8601 UTC timestamp, then `line`, on standard error.
    static func log(_ line: String) {
        error("\(Date().formatted(.iso8601)) \(line)")
    }
}
