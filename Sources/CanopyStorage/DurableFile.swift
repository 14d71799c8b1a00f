#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File operations that report `errno` as ``StorageError`` and make data durable: every
/// write is followed by an fsync before it counts, and replacing a file is atomic (temporary
/// file, fsync, rename, fsync of the directory).
enum DurableFile {
    /// The whole content of the file at `path`, or `nil` when it does not exist.
    static func contents(of path: String) throws(StorageError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure("cannot open \(path)")
        }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read \(path)")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Atomically replaces (or creates) the file at `path` with `bytes`: after this returns
    /// the new content is on disk, and a crash at any moment leaves either the old or the
    /// new file.
    static func replace(_ path: String, with bytes: [UInt8], directory: String) throws(StorageError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        do throws(StorageError) {
            try writeAll(fd, bytes, path: temporary)
            try sync(fd, path: temporary)
        } catch {
            _ = close(fd)
            _ = unlink(temporary)
            throw error
        }
        guard close(fd) == 0 else { throw failure("cannot close \(temporary)") }
        guard rename(temporary, path) == 0 else { throw failure("cannot rename \(temporary) to \(path)") }
        try syncDirectory(directory)
    }

    /// Removes the file at `path` if it exists.
    static func remove(_ path: String) throws(StorageError) {
        if unlink(path) != 0 && errno != ENOENT { throw failure("cannot remove \(path)") }
    }

    /// Creates the directory at `path` (and missing parents) if needed.
    static func createDirectory(_ path: String) throws(StorageError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw failure("cannot create directory \(prefix)")
            }
            prefix += "/"
        }
    }

    /// Makes the directory's entries (created or renamed files) durable.
    static func syncDirectory(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot open directory \(path)") }
        defer { _ = close(fd) }
        try sync(fd, path: path)
    }

    /// Writes all of `bytes` at the file's current offset, retrying short writes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(StorageError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(fd, base + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write \(path)")
            }
            offset += written
        }
    }

    /// Opens (creating if needed) the file at `path` and takes an exclusive `flock` on it,
    /// waiting at most about a second for a holder to let go; returns the descriptor that holds the lock until it is closed.
    static func lockExclusively(_ path: String) throws(StorageError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("cannot open \(path)") }
        // A child process forked elsewhere in this process shares the lock's open file
        // description until it calls exec, so a lock just released can look held for a
        // moment: try again for up to a second before calling it held.
        for attempt in 0...lockAttempts {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return fd }
            guard errno == EWOULDBLOCK, attempt < lockAttempts else { break }
            usleep(lockRetryMicroseconds)
        }
        let error =
            errno == EWOULDBLOCK
            ? StorageError(kind: .io, code: errno, message: "\(path) is held by another open store")
            : failure("cannot lock \(path)")
        _ = close(fd)
        throw error
    }

    /// How many times a held lock is tried again, and how long apart.
    private static let lockAttempts = 100
    private static let lockRetryMicroseconds: UInt32 = 10_000

    /// Closes a file descriptor, ignoring errors (nothing is left to flush after an fsync).
    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Flushes the file's data and metadata to the disk.
    static func sync(_ fd: Int32, path: String) throws(StorageError) {
        #if canImport(Darwin)
            // On Apple platforms fsync does not flush the drive's cache; F_FULLFSYNC does.
            if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        guard fsync(fd) == 0 else { throw failure("cannot fsync \(path)") }
    }

    /// The error for the current `errno`.
    static func failure(_ what: String) -> StorageError {
        let code = errno
        return StorageError(kind: .io, code: code, message: "\(what): \(String(cString: strerror(code)))")
    }
}
