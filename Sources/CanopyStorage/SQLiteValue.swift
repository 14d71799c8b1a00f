/// A value bound to or read from an SQLite statement, one case per SQLite storage class.
public enum SQLiteValue: Sendable, Equatable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double. SQLite stores NaN as `NULL`.
    case real(Double)
    /// UTF-8 text, which may contain NUL characters.
    case text(String)
    /// Bytes; an empty array is a zero-length blob, not `NULL`.
    case blob([UInt8])
}
