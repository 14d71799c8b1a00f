import CSQLite

/// Facts about the SQLite library this build links.
public enum SQLiteLibrary {
    /// The linked SQLite version, such as `3.40.1`.
    public static var version: String { String(cString: sqlite3_libversion()) }
}
