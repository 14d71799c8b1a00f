import CanopyTree
import CanopyWire

/// Writes for the REST API that also report the data they leave behind, read in the same
/// step as the write so that no other write can come between.
extension ServerNamespace {
    /// A put (``put(session:path:data:hash:auth:writeLimit:)``) followed by a read of
    /// `path`: on success the written data with server values resolved, on `datastale` the
    /// current data.
    func putReadingBack(
        session: ServerSessionID, path: Path, data: JSONValue, hash: String?, auth: ConnectionAuth, writeLimit: Int
    ) -> (response: ServerResponse, data: Node) {
        let response = put(session: session, path: path, data: data, hash: hash, auth: auth, writeLimit: writeLimit)
        return (response, value(at: path))
    }

    /// A merge (``merge(session:path:children:auth:writeLimit:)``) followed by a read of
    /// `path`.
    func mergeReadingBack(
        session: ServerSessionID, path: Path, children: JSONValue, auth: ConnectionAuth, writeLimit: Int
    ) -> (response: ServerResponse, data: Node) {
        let response = merge(session: session, path: path, children: children, auth: auth, writeLimit: writeLimit)
        return (response, value(at: path))
    }
}
