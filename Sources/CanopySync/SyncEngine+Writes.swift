import CanopyTree
import CanopyWire

extension SyncEngine {
    /// Writes `node` at `path` (`set`): local events at once, then the put on the wire;
    /// the server's answer acknowledges or reverts it. Server-value placeholders are
    /// resolved locally against the current local value and sent unresolved. Aborts the
    /// transactions the write conflicts with (client-design.md §9.5).
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the path or value is invalid
    ///   (nothing happens then).
    public func setValue(_ node: Node, at path: Path, completion: WriteCompletion? = nil) throws(DatabaseError) {
        wire()
        do {
            try TreeValidation.validateWrite(node, at: path)
        } catch {
            throw DatabaseError(error)
        }
        let events = startWrite(
            StoredWrite(writeId: nextWriteId(), path: path, payload: .overwrite(node)), completion: completion)
        raise(events)
        rerunTransactions(at: abortTransactions(at: path))
    }

    /// Writes each (relative path, node) below `path` as one atomic multi-path update.
    /// An empty update completes at once without a request.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for an invalid path or value, or
    ///   overlapping paths.
    public func updateChildValues(
        _ children: [(path: Path, node: Node)], at path: Path, completion: WriteCompletion? = nil
    ) throws(DatabaseError) {
        wire()
        try validateUpdate(children, at: path)
        if children.isEmpty {
            if let completion { complete { completion(nil) } }
            return
        }
        let events = startWrite(
            StoredWrite(writeId: nextWriteId(), path: path, payload: .merge(children)), completion: completion)
        raise(events)
        for child in children { _ = abortTransactions(at: path.child(child.path)) }
        rerunTransactions(at: path)
    }

    /// Sets the priority of the node at `path` (a write to `path/.priority`).
    public func setPriority(_ priority: LeafValue?, at path: Path, completion: WriteCompletion? = nil)
        throws(DatabaseError)
    {
        try setValue(priority.map { Node(leaf: $0) } ?? .empty, at: path.child(.priority), completion: completion)
    }

    /// Deletes the data at `path` (a `set` of null).
    public func removeValue(at path: Path, completion: WriteCompletion? = nil) throws(DatabaseError) {
        try setValue(.empty, at: path, completion: completion)
    }

    /// Drops every pending write: reverts them locally (with events), fails them and every
    /// transaction with ``DatabaseError/Code/writeCanceled``, and drops queued onDisconnect
    /// requests (client-design.md §11.3).
    public func purgeOutstandingWrites() {
        wire()
        raise(serverTree.removeAllWrites())
        configuration.writeQueue.removeAllWrites()
        let canceled = DatabaseError(.writeCanceled)
        for transaction in transactions.transactions where transaction.status == .run {
            transaction.status = .needsAbort
            transaction.abortReason = canceled
        }
        connection.purgeOutstandingWrites()
        rerunTransactions(at: .root)
    }

    /// Re-applies and re-sends the writes the write queue holds (at start-up).
    func restoreWrites() {
        let stored = configuration.writeQueue.loadWrites()
        guard !stored.isEmpty else { return }
        for write in stored {
            nextWriteIdValue = max(nextWriteIdValue, write.writeId + 1)
            raise(startWrite(write, completion: nil, isRestored: true))
        }
    }

    /// Applies a write locally (server values resolved against the local value and clock),
    /// records it as pending and in the write queue, and hands it to the connection.
    /// Returns the local events.
    private func startWrite(_ write: StoredWrite, completion: WriteCompletion?, isRestored: Bool = false) -> [Event] {
        let now = serverClock.now()
        let path = write.path
        let writeId = write.writeId
        let events: [Event]
        let request: ClientRequest
        switch write.payload {
        case .overwrite(let node):
            let existing = serverTree.calcCompleteEventCache(at: path) ?? .empty
            let resolved = ServerValueResolver.resolve(node, existing: existing, now: now)
            events = serverTree.applyUserOverwrite(path: path, node: resolved, writeId: writeId)
            request = .put(path: path, data: node.exportJSON(), hash: nil)
        case .merge(let children):
            let resolved = children.map { child in
                let existing = serverTree.calcCompleteEventCache(at: path.child(child.path)) ?? .empty
                return (path: child.path, node: ServerValueResolver.resolve(child.node, existing: existing, now: now))
            }
            events = serverTree.applyUserMerge(path: path, children: resolved, writeId: writeId)
            request = .merge(path: path, data: Self.mergeObject(children))
        }
        if !isRestored { configuration.writeQueue.saveWrite(write) }
        writeStarted(writeId, at: path)
        connection.write(request) { response in
            self.writeAnswered(writeId, at: path, response: response, completion: completion)
        }
        return events
    }

    func validateUpdate(_ children: [(path: Path, node: Node)], at path: Path) throws(DatabaseError) {
        do throws(TreeError) {
            try TreeValidation.validateWritePath(path)
            for child in children {
                if child.path.isRoot {
                    throw TreeError.invalidPath(
                        path: path.wireString, reason: "an update key must name a path below \(path.wireString)")
                }
                try TreeValidation.validateWrite(child.node, at: path.child(child.path))
            }
            try TreeValidation.validateDisjoint(children.map { path.child($0.path) })
        } catch {
            throw DatabaseError(error)
        }
    }

    /// The `d` object of a merge: relative paths to export-form data.
    static func mergeObject(_ children: [(path: Path, node: Node)]) -> JSONValue {
        .object(children.map { JSONMember($0.path.serverString, $0.node.exportJSON()) })
    }

    private func writeAnswered(
        _ writeId: Int, at path: Path, response: ServerResponse, completion: WriteCompletion?
    ) {
        let error = response.status.isOK ? nil : DatabaseError(status: response.status, reason: response.reason)
        if let error { configuration.log?("write at \(path) failed: \(error)") }
        configuration.writeQueue.removeWrite(withId: writeId)
        let events = serverTree.ackUserWrite(writeId: writeId, revert: error != nil)
        raise(events)
        writeFinished(writeId, error: error)
        if let completion { complete { completion(error) } }
        if !events.isEmpty { rerunTransactions(at: path) }
    }
}
