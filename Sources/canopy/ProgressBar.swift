/// A one-line progress bar on standard error, drawn only when standard error is a terminal
/// (scripts and pipes get no progress output).
struct ProgressBar {
    private let label: String
    private let isVisible: Bool
    private var drawn = -1
    private var started = false

    /// A bar titled `label`, visible when standard error is a terminal.
    init(label: String, isVisible: Bool = Console.errorIsTerminal) {
        self.label = label
        self.isVisible = isVisible
    }

    /// Shows `done` bytes of `total` (a total ≤ 0 is unknown: only the byte count is shown).
    mutating func update(_ done: Int64, of total: Int64) {
        guard isVisible else { return }
        let width = 30
        let line: String
        let key: Int
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            key = Int(fraction * 1000)
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            line = "\(label) [\(bar)] \(Int(fraction * 100))% \(Self.size(done)) / \(Self.size(total))"
        } else {
            key = Int(done >> 16)
            line = "\(label) \(Self.size(done))"
        }
        guard key != drawn else { return }
        drawn = key
        started = true
        Console.errorFragment("\r\u{1B}[K" + line)
    }

    /// Ends the bar's line.
    mutating func finish() {
        guard isVisible, started else { return }
        started = false
        Console.errorFragment("\n")
    }

    /// A byte count for people: `512 B`, `1.5 KB`, `3.2 MB`.
    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
