import Foundation

/// Memory figures of a process read from `/proc/<pid>/status` (Linux): resident set size
/// now (`VmRSS`) and its peak so far (`VmHWM`), in kilobytes.
public struct ProcessMemory: Sendable {
    /// Resident set size in kilobytes.
    public let residentKB: Int
    /// Peak resident set size in kilobytes.
    public let peakKB: Int

    /// The figures of the process `pid` (`self` for this one), or `nil` where `/proc` is
    /// unavailable.
    public static func read(pid: String = "self") -> ProcessMemory? {
        // /proc files report size 0, so read until end of file rather than by size.
        let descriptor = open("/proc/\(pid)/status", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") || line.hasPrefix("VmHWM:") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count >= 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let rss = fields["VmRSS:"], let hwm = fields["VmHWM:"] else { return nil }
        return ProcessMemory(residentKB: rss, peakKB: hwm)
    }

    /// "RSS x MB, peak y MB".
    public var summary: String {
        "RSS \(Self.megabytes(residentKB)) MB, peak (VmHWM) \(Self.megabytes(peakKB)) MB"
    }

    /// Kilobytes as megabytes with one decimal.
    public static func megabytes(_ kilobytes: Int) -> String {
        let tenths = (kilobytes * 10 + 512) / 1024
        return "\(tenths / 10).\(tenths % 10)"
    }
}
