import CanopyServer
import CanopyTree

/// A test policy: only authenticated connections may read or write, and nobody may write
/// below `/locked`.
struct SignedInPolicy: AccessPolicy {
    func allowsRead(_ read: ReadAccess) -> Bool { read.auth.isAuthenticated }

    func allowsWrite(_ write: WriteAccess) -> Bool {
        write.auth.isAuthenticated && write.path.front?.string != "locked"
    }

    func listenWarnings(_ read: ReadAccess) -> [String] {
        read.query?["i"]?.stringValue.map { $0.hasPrefix(".") ? [] : ["no_index"] } ?? []
    }
}
