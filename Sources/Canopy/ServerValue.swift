import Foundation

/// Placeholders the server replaces with a value when it applies the write.
///
/// Use them anywhere a value or a priority is written. The client shows an estimate at once
/// (its own clock corrected by the server's offset, or the local value plus the delta) and
/// the server's authoritative value arrives as ordinary data afterwards.
public enum ServerValue {
    /// The server's time in milliseconds since the Unix epoch: `{".sv": "timestamp"}`.
    public static func timestamp() -> [AnyHashable: Any] {
        [".sv": "timestamp"]
    }

    /// Adds `delta` to the number stored at the location (or stores `delta` when the
    /// location holds no number): `{".sv": {"increment": delta}}`.
    ///
    /// Integral deltas add exactly as 64-bit integers while the sum fits; otherwise the sum
    /// is a double.
    public static func increment(_ delta: NSNumber) -> [AnyHashable: Any] {
        [".sv": ["increment": delta] as [String: Any]]
    }

    /// Adds an integral `delta`; see ``increment(_:)-(NSNumber)``.
    public static func increment(_ delta: Int) -> [AnyHashable: Any] {
        increment(NSNumber(value: delta))
    }

    /// Adds a fractional `delta`; see ``increment(_:)-(NSNumber)``.
    public static func increment(_ delta: Double) -> [AnyHashable: Any] {
        increment(NSNumber(value: delta))
    }
}
