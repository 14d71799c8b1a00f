import Foundation

/// Raises this process's open-file limit to its hard limit, so that a thousand websocket
/// connections (each with its own service context on the client side) fit.
enum FileDescriptorLimit {
    /// The soft limit after raising it.
    @discardableResult
    static func raise() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return UInt64(limit.rlim_cur)
    }
}
