import Foundation

/// The process's standard output and standard error, written unbuffered so that lines reach
/// a pipe as soon as they are printed (scripts and tests wait on them). A stream whose reader
/// has gone away loses the text; the process carries on.
enum Console {
    /// Writes `text` followed by a newline to standard output.
    static func output(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` followed by a newline to standard error.
    static func error(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` as is to standard error (for progress bars that redraw a line).
    static func errorFragment(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes all of `text` to `descriptor`, giving up silently on an error such as a closed
    /// pipe (`FileHandle.write` would stop the process there).
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
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
