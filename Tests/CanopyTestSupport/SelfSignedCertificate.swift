import Foundation

/// A self-signed certificate for `localhost` and `127.0.0.1` (subject alternative names),
/// with its private key, made in a temporary directory by the `openssl` command. It is its own
/// authority: a client trusts it by naming ``certificateFile`` as a custom CA file.
public struct SelfSignedCertificate: Sendable {
    /// The directory holding both files.
    public let directory: URL
    /// The PEM certificate.
    public var certificateFile: String { directory.appendingPathComponent("cert.pem").path }
    /// The PEM private key (unencrypted).
    public var privateKeyFile: String { directory.appendingPathComponent("key.pem").path }

    /// The `openssl` executable on `PATH` (or in `/usr/bin`, `/usr/local/bin`), if installed.
    public static var openssl: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/openssl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Makes a fresh certificate and key with the `openssl` command.
    ///
    /// - Throws: ``Failure`` when `openssl` is not installed (`scripts/setup.sh` installs it)
    ///   or fails.
    public static func make() throws -> SelfSignedCertificate {
        guard let openssl else {
            throw Failure(description: "no `openssl` executable to make a certificate (scripts/setup.sh installs it)")
        }
        return try make(openssl: openssl)
    }

    /// Makes a fresh certificate and key with the `openssl` at `openssl`.
    public static func make(openssl: String) throws -> SelfSignedCertificate {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canopy-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = SelfSignedCertificate(directory: directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", certificate.privateKeyFile, "-out", certificate.certificateFile,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            certificate.remove()
            throw Failure(description: "openssl exited with \(process.terminationStatus)")
        }
        return certificate
    }

    /// Deletes the directory and both files.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The certificate could not be made.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }
}
