import CanopyStorage
import Testing

@Test func linksSQLite3() {
    #expect(SQLiteLibrary.version.hasPrefix("3."))
}
