import CanopyTree
import CanopyWire

extension SyncEngine {
    /// Starts a transaction at `path` (client-design.md §9).
    ///
    /// `update` runs on the engine actor, first at once with the current local value (the
    /// empty node when nothing is known yet), then again whenever the server rejects the
    /// conditional put or new data arrives before it is sent. Its result is applied locally
    /// (raising events when `appliesLocally`) and sent with the hash of the value it was
    /// computed from. `completion` runs on the executor once the transaction ends.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when `path` cannot be written.
    public func runTransaction(
        at path: Path, appliesLocally: Bool = true, update: @escaping @Sendable (Node) -> TransactionOutcome,
        completion: (@Sendable (TransactionCompletion) -> Void)? = nil
    ) throws(DatabaseError) {
        wire()
        do {
            try TreeValidation.validateWritePath(path)
        } catch {
            throw DatabaseError(error)
        }
        let watcher = ObserverRegistration(eventTypes: [])
        let query = QuerySpec.defaultQuery(at: path)
        raise(serverTree.addEventRegistration(watcher, for: query))
        let input = serverTree.calcCompleteEventCache(at: path) ?? .empty
        let raw: Node
        switch update(input) {
        case .abort:
            raise(serverTree.removeEventRegistration(watcher, for: query))
            if let completion {
                complete { completion(TransactionCompletion(error: nil, committed: false, node: input)) }
            }
            return
        case .commit(let node):
            raw = node
        }
        do {
            try TreeValidation.validateWrite(raw, at: path)
        } catch {
            raise(serverTree.removeEventRegistration(watcher, for: query))
            let failure = DatabaseError(error)
            if let completion {
                complete { completion(TransactionCompletion(error: failure, committed: false, node: input)) }
            }
            return
        }
        let resolved = ServerValueResolver.resolve(raw, existing: input, now: serverClock.now())
        let writeId = nextWriteId()
        let transaction = SyncTransaction(
            order: nextTransactionOrder, path: path, update: update, completion: completion,
            appliesLocally: appliesLocally, watcher: watcher, writeId: writeId, input: input, rawOutput: raw,
            resolvedOutput: resolved)
        nextTransactionOrder += 1
        transactions.append(transaction)
        raise(serverTree.applyUserOverwrite(path: path, node: resolved, writeId: writeId, isVisible: appliesLocally))
        sendReadyTransactions()
    }

    /// The number of transactions not yet finished.
    public var activeTransactionCount: Int { transactions.transactions.count }

    // MARK: - Sending (§9.2)

    func sendReadyTransactions() {
        transactions.pruneCompleted()
        for root in transactions.batchRoots {
            let batch = transactions.transactions(atOrBelow: root)
            guard !batch.isEmpty, batch.allSatisfy({ $0.status == .run }) else { continue }
            send(batch, at: root)
        }
    }

    private func send(_ batch: [SyncTransaction], at path: Path) {
        let latest = serverTree.calcCompleteEventCache(at: path, excluding: Set(batch.map(\.writeId))) ?? .empty
        var payload = latest
        for transaction in batch {
            transaction.status = .sent
            transaction.retryCount += 1
            if let relative = transaction.path.relative(to: path) {
                payload = payload.updating(at: relative, transaction.rawOutput)
            }
        }
        connection.write(.put(path: path, data: payload.exportJSON(), hash: latest.hash)) { response in
            self.transactionsAnswered(batch, at: path, response: response)
        }
    }

    // MARK: - Responses (§9.3)

    private func transactionsAnswered(_ batch: [SyncTransaction], at path: Path, response: ServerResponse) {
        if response.status.isOK {
            var events: [Event] = []
            for transaction in batch {
                transaction.status = .completed
                events += serverTree.ackUserWrite(writeId: transaction.writeId)
            }
            raise(events)
            for transaction in batch { unwatch(transaction) }
            sendReadyTransactions()
            for transaction in batch {
                finish(
                    transaction, TransactionCompletion(error: nil, committed: true, node: transaction.resolvedOutput))
            }
            return
        }
        if response.status == .dataStale {
            for transaction in batch {
                transaction.status = transaction.status == .sentNeedsAbort ? .needsAbort : .run
            }
        } else {
            let error = DatabaseError(status: response.status, reason: response.reason)
            configuration.log?("transaction at \(path) failed: \(error)")
            for transaction in batch {
                transaction.status = .needsAbort
                transaction.abortReason = error
            }
        }
        rerunTransactions(at: path)
    }

    // MARK: - Re-running (§9.4)

    /// Re-runs the transactions above, at and below `changedPath` (from the rootmost
    /// location on the way that holds one), then sends what is ready.
    func rerunTransactions(at changedPath: Path) {
        guard !transactions.isEmpty else { return }
        let root = transactions.rootmostPath(on: changedPath)
        let queue = transactions.transactions(atOrBelow: root)
        // The inputs leave out the writes of the transactions being re-run, but keep those
        // of transactions whose put is with the server: they are expected to commit (if
        // they fail, the whole queue runs again), and leaving them out would make the
        // re-run transactions lose their increments when they do.
        var excluded = Set(queue.filter { $0.status == .run || $0.status == .needsAbort }.map(\.writeId))
        var finished: [(SyncTransaction, TransactionCompletion)] = []
        for transaction in queue {
            var events: [Event] = []
            switch transaction.status {
            case .needsAbort:
                let reason = transaction.abortReason ?? DatabaseError(.overriddenBySet)
                if reason.code != .writeCanceled {
                    events = serverTree.ackUserWrite(writeId: transaction.writeId, revert: true)
                }
                transaction.status = .completed
                finished.append(
                    (transaction, TransactionCompletion(error: reason, committed: false, node: transaction.input)))
            case .run where transaction.retryCount >= Self.maxTransactionRetries:
                events = serverTree.ackUserWrite(writeId: transaction.writeId, revert: true)
                transaction.status = .completed
                finished.append(
                    (
                        transaction,
                        TransactionCompletion(
                            error: DatabaseError(.maxRetries), committed: false, node: transaction.input)
                    ))
            case .run:
                let current = serverTree.calcCompleteEventCache(at: transaction.path, excluding: excluded) ?? .empty
                transaction.input = current
                switch transaction.update(current) {
                case .commit(let raw):
                    do {
                        try TreeValidation.validateWrite(raw, at: transaction.path)
                    } catch {
                        events = serverTree.ackUserWrite(writeId: transaction.writeId, revert: true)
                        transaction.status = .completed
                        finished.append(
                            (
                                transaction,
                                TransactionCompletion(error: DatabaseError(error), committed: false, node: current)
                            ))
                        break
                    }
                    let resolved = ServerValueResolver.resolve(raw, existing: current, now: serverClock.now())
                    let oldWriteId = transaction.writeId
                    let newWriteId = nextWriteId()
                    excluded.remove(oldWriteId)
                    transaction.writeId = newWriteId
                    transaction.rawOutput = raw
                    transaction.resolvedOutput = resolved
                    events = serverTree.applyUserOverwrite(
                        path: transaction.path, node: resolved, writeId: newWriteId,
                        isVisible: transaction.appliesLocally)
                    events += serverTree.ackUserWrite(writeId: oldWriteId, revert: true)
                case .abort:
                    events = serverTree.ackUserWrite(writeId: transaction.writeId, revert: true)
                    transaction.status = .completed
                    finished.append((transaction, TransactionCompletion(error: nil, committed: false, node: current)))
                }
            case .sent, .sentNeedsAbort, .completed:
                continue
            }
            raise(events)
            if transaction.status == .completed { unwatch(transaction) }
        }
        transactions.pruneCompleted()
        for (transaction, completion) in finished { finish(transaction, completion) }
        sendReadyTransactions()
    }

    // MARK: - Conflicts (§9.5)

    /// Aborts the transactions a write at `path` overrides: not-yet-sent ones fail at once
    /// with ``DatabaseError/Code/overriddenBySet``, sent ones are marked to fail if the
    /// server rejects them. Returns the location to re-run from.
    func abortTransactions(at path: Path) -> Path {
        guard !transactions.isEmpty else { return path }
        let affected = transactions.rootmostPath(on: path)
        var events: [Event] = []
        var aborted: [SyncTransaction] = []
        for transaction in transactions.conflicting(with: path) {
            switch transaction.status {
            case .sent:
                transaction.status = .sentNeedsAbort
                transaction.abortReason = DatabaseError(.overriddenBySet)
            case .run:
                transaction.status = .completed
                events += serverTree.ackUserWrite(writeId: transaction.writeId, revert: true)
                aborted.append(transaction)
            case .sentNeedsAbort, .needsAbort, .completed:
                continue
            }
        }
        raise(events)
        for transaction in aborted { unwatch(transaction) }
        transactions.pruneCompleted()
        for transaction in aborted {
            finish(
                transaction,
                TransactionCompletion(error: DatabaseError(.overriddenBySet), committed: false, node: nil))
        }
        return affected
    }

    // MARK: - Helpers

    private func unwatch(_ transaction: SyncTransaction) {
        raise(serverTree.removeEventRegistration(transaction.watcher, for: .defaultQuery(at: transaction.path)))
    }

    private func finish(_ transaction: SyncTransaction, _ result: TransactionCompletion) {
        guard let completion = transaction.completion else { return }
        complete { completion(result) }
    }
}
