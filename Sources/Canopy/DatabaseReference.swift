import CanopySync
import CanopyTree
import Foundation

/// A location in the database: read it (it is a ``DatabaseQuery``), write it, and navigate
/// from it.
///
/// References are cheap immutable values shared freely between threads. Every write has
/// three forms: fire-and-forget (`setValue(_:)`), with a completion block called once the
/// server acknowledged or refused it (`setValue(_:withCompletionBlock:)`), and
/// `async throws` (`try await ref.setValue(_:)`). Writes apply locally at once — observers
/// see them before the server answers — and reach the server in call order.
///
/// Invalid input (keys, paths, values, priorities) is never queued and never crashes: it
/// is thrown by the `async` forms, passed to completion blocks, and written to standard
/// error by the fire-and-forget forms (see ``Database``, "Invalid input").
public final class DatabaseReference: DatabaseQuery, @unchecked Sendable {
    // No stored properties beyond DatabaseQuery's immutable ones.

    init(database: Database, path: Path, error: DatabaseError? = nil) {
        super.init(database: database, path: path, params: .default, error: error, locationError: error)
    }

    // MARK: - Navigation

    /// The reference at the relative `pathString` below this one (`"name"`,
    /// `"users/alice"`); an invalid path gives a reference whose ``DatabaseQuery/validationError`` names
    /// it.
    public func child(_ pathString: String) -> DatabaseReference {
        if validationError != nil { return self }
        do {
            return DatabaseReference(database: database, path: try DatabasePath.child(pathString, of: path))
        } catch {
            return DatabaseReference(database: database, path: path.child(Path(pathString)), error: error)
        }
    }

    /// The reference at the child `key` (already known to be a stored key).
    func child(key: ChildKey) -> DatabaseReference {
        DatabaseReference(database: database, path: path.child(key), error: validationError)
    }

    /// A reference to a new child with a unique, time-ordered key (20 characters, see
    /// `PushIDGenerator`). Nothing is written until you write to it.
    public func childByAutoId() -> DatabaseReference {
        child(key: ChildKey(database.nextPushID()))
    }

    /// The parent location; `nil` at the root.
    public var parent: DatabaseReference? {
        path.parent.map { DatabaseReference(database: database, path: $0, error: validationError) }
    }

    /// The root of the database.
    public var root: DatabaseReference {
        DatabaseReference(database: database, path: .root, error: validationError)
    }

    /// The last key of the location; `nil` at the root.
    public var key: String? { path.back?.string }

    /// The full URL of the location.
    public var url: String {
        switch database.location {
        case .success(let location): return location.url(of: path)
        case .failure: return database.urlText
        }
    }

    // MARK: - Connection of every database

    /// Disconnects every ``Database`` instance of the process (``Database/goOffline()`` on
    /// each).
    public static func goOffline() {
        for database in Database.liveInstances { database.goOffline() }
    }

    /// Reconnects every ``Database`` instance of the process (``Database/goOnline()`` on
    /// each).
    public static func goOnline() {
        for database in Database.liveInstances { database.goOnline() }
    }

    // MARK: - Writing

    /// Replaces the data here with `value` (`nil` removes it); see ``setValue(_:withCompletionBlock:)``.
    public func setValue(_ value: Any?) {
        setValue(value, andPriority: nil, completion: nil)
    }

    /// Replaces the data here with `value`: `nil`/`NSNull`, a `Bool`, a number, a `String`,
    /// `[String: Any]` or `[Any]` (nested freely), or a ``ServerValue`` placeholder. A
    /// `".priority"` key sets the priority too. `block` gets `nil` once the server accepted
    /// the write, or the error (permission denied, invalid input, purged, …).
    public func setValue(
        _ value: Any?, withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        setValue(value, andPriority: nil, completion: block)
    }

    /// Replaces the data here with `value`, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func setValue(_ value: Any?) async throws -> DatabaseReference {
        let node = try validatedWrite { try DatabasePath.node(from: value, forWriteAt: path) }
        try await awaitCompletion { self.post(set: node, at: self.path, completion: $0) }
        return self
    }

    /// Replaces the data here with `value` and sets its priority (`nil` for none).
    public func setValue(_ value: Any?, andPriority priority: Any?) {
        setValue(value, andPriority: priority, completion: nil)
    }

    /// Replaces the data here with `value` and sets its priority, then calls `block`.
    public func setValue(
        _ value: Any?, andPriority priority: Any?,
        withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        setValue(value, andPriority: priority, completion: block)
    }

    /// Replaces the data here with `value` and sets its priority, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func setValue(_ value: Any?, andPriority priority: Any?) async throws -> DatabaseReference {
        let node = try validatedWrite {
            try DatabasePath.node(from: value, priority: priority, forWriteAt: path)
        }
        try await awaitCompletion { self.post(set: node, at: self.path, completion: $0) }
        return self
    }

    private func setValue(
        _ value: Any?, andPriority priority: Any?,
        completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?
    ) {
        let path = self.path
        perform(
            "setValue", completion: completion,
            validate: {
                try DatabasePath.node(from: value, priority: priority, forWriteAt: path)
            },
            post: { node, done in self.post(set: node, at: path, completion: done) })
    }

    /// Removes the data here (a `setValue(nil)`).
    public func removeValue() {
        setValue(nil)
    }

    /// Removes the data here, then calls `block`.
    public func removeValue(completionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void) {
        setValue(nil, withCompletionBlock: block)
    }

    /// Removes the data here, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func removeValue() async throws -> DatabaseReference {
        try await setValue(nil as Any?)
    }

    /// Sets the priority of the data here (`nil` removes it): a write to
    /// `<path>/.priority`. A priority on a location without data is dropped.
    public func setPriority(_ priority: Any?) {
        setPriority(priority, completion: nil)
    }

    /// Sets the priority, then calls `block`.
    public func setPriority(
        _ priority: Any?, withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        setPriority(priority, completion: block)
    }

    /// Sets the priority, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func setPriority(_ priority: Any?) async throws -> DatabaseReference {
        let target = path.child(.priority)
        let node = try validatedWrite { try DatabasePath.node(from: priority, forWriteAt: target) }
        try await awaitCompletion { self.post(set: node, at: target, completion: $0) }
        return self
    }

    private func setPriority(
        _ priority: Any?, completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?
    ) {
        let target = path.child(.priority)
        perform(
            "setPriority", completion: completion,
            validate: { try DatabasePath.node(from: priority, forWriteAt: target) },
            post: { node, done in self.post(set: node, at: target, completion: done) })
    }

    /// Writes several children at once, leaving the others alone. Keys are relative paths
    /// (`"posts/\(id)"`, `"user-posts/\(uid)/\(id)"`), so one call can fan data out to
    /// several locations atomically. Targets may not overlap.
    public func updateChildValues(_ values: [AnyHashable: Any]) {
        updateChildValues(values, completion: nil)
    }

    /// Writes several children at once, then calls `block`.
    public func updateChildValues(
        _ values: [AnyHashable: Any],
        withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        updateChildValues(values, completion: block)
    }

    /// Writes several children at once, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func updateChildValues(_ values: [AnyHashable: Any]) async throws -> DatabaseReference {
        let children = try validatedWrite { try DatabasePath.update(values, at: path) }
        try await awaitCompletion { self.post(update: children, completion: $0) }
        return self
    }

    private func updateChildValues(
        _ values: [AnyHashable: Any], completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?
    ) {
        let path = self.path
        perform(
            "updateChildValues", completion: completion,
            validate: { try DatabasePath.update(values, at: path) },
            post: { children, done in self.post(update: children, completion: done) })
    }

    /// Encodes `value` with `encoder` and writes it here (`setValue`); `completion` gets the
    /// server's answer.
    ///
    /// - Throws: the encoder's error, or a ``DatabaseError`` for data the database cannot
    ///   store — before anything is written.
    public func setValue<T: Encodable>(
        from value: T, encoder: Database.Encoder = Database.Encoder(),
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) throws {
        let json = try encoder.encodeJSON(value)
        let node = try DatabasePath.validatedNode(json, forWriteAt: try writablePath())
        post(set: node, at: path) { error in completion?(error) }
    }

    /// Encodes `value` and writes it here, awaiting the server.
    ///
    /// - Throws: the encoder's error or a ``DatabaseError``.
    @discardableResult
    public func setValue<T: Encodable>(from value: T, encoder: Database.Encoder = Database.Encoder()) async throws
        -> DatabaseReference
    {
        let json = try encoder.encodeJSON(value)
        let node = try DatabasePath.validatedNode(json, forWriteAt: try writablePath())
        try await awaitCompletion { self.post(set: node, at: self.path, completion: $0) }
        return self
    }

    // MARK: - Transactions

    /// Atomically reads and updates the data here: `block` receives the current value and
    /// returns ``TransactionResult/success(withValue:)`` with the new value or
    /// ``TransactionResult/abort()``. It may run several times (first on the locally known
    /// value, again whenever the server had different data) and must have no other side
    /// effects.
    public func runTransactionBlock(_ block: @escaping @Sendable (MutableData) -> TransactionResult) {
        runTransactionBlock(block, completion: nil, withLocalEvents: true)
    }

    /// Runs a transaction; `completionBlock` gets the error, whether it committed, and the
    /// final snapshot (the committed value, or the last value the block saw).
    public func runTransactionBlock(
        _ block: @escaping @Sendable (MutableData) -> TransactionResult,
        andCompletionBlock completionBlock: @escaping @Sendable ((any Error)?, Bool, DataSnapshot?) -> Void
    ) {
        runTransactionBlock(block, completion: completionBlock, withLocalEvents: true)
    }

    /// Runs a transaction; with `localEvents` false, intermediate values are not shown to
    /// this client's observers (only the committed result, once the server accepted it).
    public func runTransactionBlock(
        _ block: @escaping @Sendable (MutableData) -> TransactionResult,
        andCompletionBlock completionBlock: @escaping @Sendable ((any Error)?, Bool, DataSnapshot?) -> Void,
        withLocalEvents localEvents: Bool
    ) {
        runTransactionBlock(block, completion: completionBlock, withLocalEvents: localEvents)
    }

    /// Runs a transaction and awaits its outcome: whether it committed, and the final
    /// snapshot.
    ///
    /// - Throws: ``DatabaseError`` (for example `DatabaseError.Code.maxRetries`, or
    ///   `DatabaseError.Code.invalidArgument` when the block stored an invalid value).
    public func runTransactionBlock(
        _ block: @escaping @Sendable (MutableData) -> TransactionResult, withLocalEvents localEvents: Bool = true
    ) async throws -> (Bool, DataSnapshot) {
        try await withCheckedThrowingContinuation { continuation in
            runTransactionBlock(
                block,
                completion: { error, committed, snapshot in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: (committed, snapshot ?? DataSnapshot(node: .empty, ref: self)))
                    }
                }, withLocalEvents: localEvents)
        }
    }

    private func runTransactionBlock(
        _ block: @escaping @Sendable (MutableData) -> TransactionResult,
        completion: (@Sendable ((any Error)?, Bool, DataSnapshot?) -> Void)?, withLocalEvents localEvents: Bool
    ) {
        let path: Path
        do {
            path = try writablePath()
        } catch {
            if let completion {
                database.deliver { completion(error, false, nil) }
            } else {
                Database.warn("runTransactionBlock at \(self.path.wireString) dropped: \(error.message)")
            }
            return
        }
        let invalidResult = TransactionValidation()
        let update: @Sendable (Node) -> TransactionOutcome = { node in
            let data = MutableData(node: node, at: path)
            let result = block(data)
            guard let committed = result.data else { return .abort }
            if let error = committed.validationError ?? data.validationError {
                invalidResult.record(error)
                return .abort
            }
            return .commit(committed.node)
        }
        let ref = self
        let finish: @Sendable (TransactionCompletion) -> Void = { outcome in
            let snapshot = outcome.node.map { DataSnapshot(node: $0, ref: ref) }
            completion?(outcome.error ?? invalidResult.error, outcome.committed, snapshot)
        }
        database.post { engine in
            do {
                try await engine.runTransaction(
                    at: path, appliesLocally: localEvents, update: update, completion: finish)
            } catch {
                engine.configuration.callbackExecutor.enqueue { completion?(error, false, nil) }
            }
        }
    }

    // MARK: - onDisconnect

    /// Asks the server to set the data here to `value` when this client disconnects
    /// (``ServerValue/timestamp()`` resolves to the time of the disconnect).
    public func onDisconnectSetValue(_ value: Any?) {
        onDisconnectSetValue(value, andPriority: nil, completion: nil)
    }

    /// Queues an onDisconnect set; `block` gets the server's answer to the request.
    public func onDisconnectSetValue(
        _ value: Any?, withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        onDisconnectSetValue(value, andPriority: nil, completion: block)
    }

    /// Queues an onDisconnect set, awaiting the server's acknowledgement of the request.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func onDisconnectSetValue(_ value: Any?) async throws -> DatabaseReference {
        let node = try validatedWrite { try DatabasePath.node(from: value, forWriteAt: path) }
        try await awaitCompletion { self.post(onDisconnectSet: node, completion: $0) }
        return self
    }

    /// Queues an onDisconnect set with a priority.
    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) {
        onDisconnectSetValue(value, andPriority: priority, completion: nil)
    }

    /// Queues an onDisconnect set with a priority; `block` gets the server's answer.
    public func onDisconnectSetValue(
        _ value: Any?, andPriority priority: Any?,
        withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        onDisconnectSetValue(value, andPriority: priority, completion: block)
    }

    /// Queues an onDisconnect set with a priority, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) async throws -> DatabaseReference {
        let node = try validatedWrite {
            try DatabasePath.node(from: value, priority: priority, forWriteAt: path)
        }
        try await awaitCompletion { self.post(onDisconnectSet: node, completion: $0) }
        return self
    }

    private func onDisconnectSetValue(
        _ value: Any?, andPriority priority: Any?,
        completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?
    ) {
        let path = self.path
        perform(
            "onDisconnectSetValue", completion: completion,
            validate: {
                try DatabasePath.node(from: value, priority: priority, forWriteAt: path)
            },
            post: { node, done in self.post(onDisconnectSet: node, completion: done) })
    }

    /// Asks the server to remove the data here when this client disconnects.
    public func onDisconnectRemoveValue() {
        onDisconnectSetValue(nil)
    }

    /// Queues an onDisconnect remove; `block` gets the server's answer.
    public func onDisconnectRemoveValue(
        completionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        onDisconnectSetValue(nil, withCompletionBlock: block)
    }

    /// Queues an onDisconnect remove, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func onDisconnectRemoveValue() async throws -> DatabaseReference {
        try await onDisconnectSetValue(nil as Any?)
    }

    /// Asks the server to update these children when this client disconnects (keys may be
    /// relative paths). An empty update completes at once without a request.
    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) {
        onDisconnectUpdateChildValues(values, completion: nil)
    }

    /// Queues an onDisconnect update; `block` gets the server's answer.
    public func onDisconnectUpdateChildValues(
        _ values: [AnyHashable: Any],
        withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        onDisconnectUpdateChildValues(values, completion: block)
    }

    /// Queues an onDisconnect update, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) async throws -> DatabaseReference {
        let children = try validatedWrite { try DatabasePath.update(values, at: path) }
        try await awaitCompletion { self.post(onDisconnectUpdate: children, completion: $0) }
        return self
    }

    private func onDisconnectUpdateChildValues(
        _ values: [AnyHashable: Any], completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?
    ) {
        let path = self.path
        perform(
            "onDisconnectUpdateChildValues", completion: completion,
            validate: { try DatabasePath.update(values, at: path) },
            post: { children, done in self.post(onDisconnectUpdate: children, completion: done) })
    }

    /// Cancels every onDisconnect operation queued at or below this location.
    public func cancelDisconnectOperations() {
        cancelDisconnectOperations(completion: nil)
    }

    /// Cancels the onDisconnect operations here and below; `block` gets the server's answer.
    public func cancelDisconnectOperations(
        completionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        cancelDisconnectOperations(completion: block)
    }

    /// Cancels the onDisconnect operations here and below, awaiting the server.
    ///
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func cancelDisconnectOperations() async throws -> DatabaseReference {
        _ = try writablePath()
        try await awaitCompletion { self.post(onDisconnectCancel: $0) }
        return self
    }

    private func cancelDisconnectOperations(completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?) {
        perform(
            "cancelDisconnectOperations", completion: completion,
            validate: { try writablePath() },
            post: { _, done in self.post(onDisconnectCancel: done) })
    }

    // MARK: - Internals

    /// This location, checked as a write target.
    private func writablePath() throws(DatabaseError) -> Path {
        if let validationError { throw validationError }
        do {
            try TreeValidation.validateWritePath(path)
        } catch {
            throw DatabaseError(validating: error)
        }
        return path
    }

    /// Runs a validation for an `async` write, first rethrowing the reference's own error.
    private func validatedWrite<T>(_ validate: () throws -> T) throws(DatabaseError) -> T {
        _ = try writablePath()
        do {
            return try validate()
        } catch {
            throw DatabaseError(validating: error)
        }
    }

    /// Validates, then posts a completion-style operation; invalid input goes to the
    /// completion (or the log when there is none).
    private func perform<T>(
        _ name: String, completion: (@Sendable ((any Error)?, DatabaseReference) -> Void)?,
        validate: () throws -> T,
        post: (T, @escaping @Sendable (DatabaseError?) -> Void) -> Void
    ) {
        let value: T
        do {
            value = try validatedWrite(validate)
        } catch {
            if let completion {
                database.deliver { completion(error, self) }
            } else {
                Database.warn("\(name) at \(path.wireString) dropped: \(error.message)")
            }
            return
        }
        post(value) { error in completion?(error, self) }
    }

    /// Awaits an operation that reports through a completion.
    private func awaitCompletion(_ start: (@escaping @Sendable (DatabaseError?) -> Void) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            start { error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
    }

    private func post(set node: Node, at path: Path, completion: @escaping WriteCompletion) {
        database.post(completion) { engine in try await engine.setValue(node, at: path, completion: completion) }
    }

    private func post(update children: [(path: Path, node: Node)], completion: @escaping WriteCompletion) {
        let path = self.path
        database.post(completion) { engine in
            try await engine.updateChildValues(children, at: path, completion: completion)
        }
    }

    private func post(onDisconnectSet node: Node, completion: @escaping WriteCompletion) {
        let path = self.path
        database.post(completion) { engine in
            try await engine.onDisconnectSetValue(node, at: path, completion: completion)
        }
    }

    private func post(onDisconnectUpdate children: [(path: Path, node: Node)], completion: @escaping WriteCompletion) {
        let path = self.path
        database.post(completion) { engine in
            try await engine.onDisconnectUpdateChildValues(children, at: path, completion: completion)
        }
    }

    private func post(onDisconnectCancel completion: @escaping WriteCompletion) {
        let path = self.path
        database.post(completion) { engine in
            try await engine.cancelDisconnectOperations(at: path, completion: completion)
        }
    }
}
