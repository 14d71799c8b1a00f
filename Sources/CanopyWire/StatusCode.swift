/// The status string of a response (`b.s`) or of an `ac`/`apc` push (protocol.md §3.2).
///
/// A struct over the raw string rather than a closed enum, so a status this library does not
/// know survives decoding and re-encoding unchanged; the known ones are static members and
/// match in `switch` statements (`case .ok:`).
public struct StatusCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status string as sent on the wire.
    public let rawValue: String

    /// Wraps a status string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a status string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Success.
    public static let ok = StatusCode("ok")
    /// Rules refused the operation, or authentication failed.
    public static let permissionDenied = StatusCode("permission_denied")
    /// Compare-and-set hash mismatch.
    public static let dataStale = StatusCode("datastale")
    /// The credential has expired.
    public static let expiredToken = StatusCode("expired_token")
    /// The credential is malformed or cannot be verified.
    public static let invalidToken = StatusCode("invalid_token")
    /// The service is temporarily unavailable.
    public static let unavailable = StatusCode("unavailable")
    /// A listen or get whose data exceeds the response limit.
    public static let tooBig = StatusCode("too_big")
    /// A write over the write size limit.
    public static let writeTooBig = StatusCode("write_too_big")
    /// A generic operation failure.
    public static let failure = StatusCode("failure")
    /// Data or a path that fails validation (Canopy's choice; §3.2).
    public static let invalidData = StatusCode("invalid_data")

    /// Whether this is ``ok``.
    public var isOK: Bool { self == .ok }

    /// The raw status string.
    public var description: String { rawValue }
}

extension StatusCode: ExpressibleByStringLiteral {
    /// Wraps a literal status string.
    public init(stringLiteral value: String) { self.rawValue = value }
}
