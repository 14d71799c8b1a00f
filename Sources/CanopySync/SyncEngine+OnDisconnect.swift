import CanopyTree
import CanopyWire

extension SyncEngine {
    /// Asks the server to write `node` at `path` when this client's connection ends
    /// (`o`). Queued while offline. Once acknowledged the engine mirrors it locally and
    /// applies it when the connection drops (client-design.md §10.1).
    public func onDisconnectSetValue(_ node: Node, at path: Path, completion: WriteCompletion? = nil)
        throws(DatabaseError)
    {
        wire()
        do {
            try TreeValidation.validateWrite(node, at: path)
        } catch {
            throw DatabaseError(error)
        }
        connection.onDisconnect(.onDisconnectPut(path: path, data: node.exportJSON())) { response in
            if response.status.isOK { self.onDisconnectTree.remember(path, node) }
            self.onDisconnectAnswered(response, completion: completion)
        }
    }

    /// Asks the server to apply a multi-path update below `path` when the connection ends
    /// (`om`). An empty update completes at once without a request.
    public func onDisconnectUpdateChildValues(
        _ children: [(path: Path, node: Node)], at path: Path, completion: WriteCompletion? = nil
    ) throws(DatabaseError) {
        wire()
        try validateUpdate(children, at: path)
        if children.isEmpty {
            if let completion { complete { completion(nil) } }
            return
        }
        connection.onDisconnect(.onDisconnectMerge(path: path, data: Self.mergeObject(children))) {
            response in
            if response.status.isOK {
                for child in children { self.onDisconnectTree.remember(path.child(child.path), child.node) }
            }
            self.onDisconnectAnswered(response, completion: completion)
        }
    }

    /// Asks the server to delete `path` when the connection ends.
    public func onDisconnectRemoveValue(at path: Path, completion: WriteCompletion? = nil) throws(DatabaseError) {
        try onDisconnectSetValue(.empty, at: path, completion: completion)
    }

    /// Cancels every onDisconnect operation at or below `path` (`oc`).
    public func cancelDisconnectOperations(at path: Path, completion: WriteCompletion? = nil) throws(DatabaseError) {
        wire()
        do {
            try TreeValidation.validateWritePath(path)
        } catch {
            throw DatabaseError(error)
        }
        connection.onDisconnect(.onDisconnectCancel(path: path)) { response in
            if response.status.isOK { self.onDisconnectTree.forget(path) }
            self.onDisconnectAnswered(response, completion: completion)
        }
    }

    private func onDisconnectAnswered(_ response: ServerResponse, completion: WriteCompletion?) {
        let error = response.status.isOK ? nil : DatabaseError(status: response.status, reason: response.reason)
        if let completion { complete { completion(error) } }
    }

    /// Applies the mirrored onDisconnect operations locally as server data, aborting the
    /// transactions they override, then forgets them.
    func runOnDisconnectEvents() {
        let entries = onDisconnectTree.entries()
        onDisconnectTree = SparseSnapshotTree()
        let now = serverClock.now()
        for (path, node) in entries {
            let existing = serverTree.calcCompleteEventCache(at: path) ?? .empty
            let resolved = ServerValueResolver.resolve(node, existing: existing, now: now)
            raise(serverTree.applyServerOverwrite(path: path, node: resolved))
            rerunTransactions(at: abortTransactions(at: path))
        }
    }
}
