import CanopySync
import CanopyTree
import Foundation

/// A location with an order, a range and a limit: what observers listen to and reads fetch.
///
/// Build queries from a ``DatabaseReference`` (`ref.queryOrdered(byChild: "age")
/// .queryStarting(atValue: 18).queryLimited(toFirst: 10)`); each builder returns a new
/// query. A builder call that breaks the query rules (two orders, two starts, a limit of 0,
/// a non-string bound with the key order, …) does not crash: the returned query carries a
/// ``validationError`` and every operation on it reports that error (see ``Database``,
/// "Invalid input").
///
/// Observer blocks, cancel blocks and completions run on the database's
/// ``Database/callbackQueue``, in the order the events were raised.
public class DatabaseQuery: CustomStringConvertible, @unchecked Sendable {
    // All stored properties are immutable and Sendable: the class is safe to share.

    /// The database this query belongs to.
    public let database: Database
    /// The location.
    let path: Path
    /// The order, range and limit.
    let params: QueryParams
    /// Why this query (or the reference it was built from) is invalid, if it is.
    ///
    /// Every operation on an invalid query reports this error through its completion,
    /// cancel block or `throws`, and does nothing else.
    public let validationError: DatabaseError?
    /// Why the location itself is invalid (a query builder error leaves it valid).
    let locationError: DatabaseError?

    init(
        database: Database, path: Path, params: QueryParams = .default, error: DatabaseError? = nil,
        locationError: DatabaseError? = nil
    ) {
        self.database = database
        self.path = path
        self.params = params
        self.validationError = error
        self.locationError = locationError
    }

    /// The query as the engine sees it.
    var spec: QuerySpec { QuerySpec(path: path, params: params) }

    /// The URL of the query's location (FirebaseDatabase's `description()`).
    public var description: String { ref.url }

    /// A reference to the query's location (valid even when only the query's parameters
    /// are invalid).
    public var ref: DatabaseReference {
        DatabaseReference(database: database, path: path, error: locationError)
    }

    // MARK: - Observing

    /// Calls `block` with a snapshot for every event of `eventType`, until the observer is
    /// removed; returns the handle that removes it.
    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping @Sendable (DataSnapshot) -> Void)
        -> DatabaseHandle
    {
        attach(eventType, single: false, onEvent: { snapshot, _ in block(snapshot) }, onCancel: nil)
    }

    /// Like ``observe(_:with:)``, also passing the key of the previous sibling in the query's
    /// order (`nil` for the first child, and always for `.value` and `.childRemoved`).
    @discardableResult
    public func observe(
        _ eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping @Sendable (DataSnapshot, String?) -> Void
    ) -> DatabaseHandle {
        attach(eventType, single: false, onEvent: block, onCancel: nil)
    }

    /// Like ``observe(_:with:)``; `cancelBlock` is called once if the listen fails (for
    /// example `permission_denied`, or an invalid query), after which the observer is gone.
    @discardableResult
    public func observe(
        _ eventType: DataEventType, with block: @escaping @Sendable (DataSnapshot) -> Void,
        withCancel cancelBlock: (@Sendable (any Error) -> Void)?
    ) -> DatabaseHandle {
        attach(eventType, single: false, onEvent: { snapshot, _ in block(snapshot) }, onCancel: cancelBlock)
    }

    /// Like ``observe(_:andPreviousSiblingKeyWith:)`` with a cancel block.
    @discardableResult
    public func observe(
        _ eventType: DataEventType,
        andPreviousSiblingKeyWith block: @escaping @Sendable (DataSnapshot, String?) -> Void,
        withCancel cancelBlock: (@Sendable (any Error) -> Void)?
    ) -> DatabaseHandle {
        attach(eventType, single: false, onEvent: block, onCancel: cancelBlock)
    }

    /// Calls `block` once, with the first event of `eventType`, then removes the observer.
    ///
    /// A `.value` event fires at once when the data is known locally; otherwise it waits
    /// for the server (indefinitely while offline). Use ``getData(completion:)`` for a read
    /// that prefers the server.
    public func observeSingleEvent(of eventType: DataEventType, with block: @escaping @Sendable (DataSnapshot) -> Void)
    {
        attach(eventType, single: true, onEvent: { snapshot, _ in block(snapshot) }, onCancel: nil)
    }

    /// Like ``observeSingleEvent(of:with:)``, also passing the previous sibling's key.
    public func observeSingleEvent(
        of eventType: DataEventType,
        andPreviousSiblingKeyWith block: @escaping @Sendable (DataSnapshot, String?) -> Void
    ) {
        attach(eventType, single: true, onEvent: block, onCancel: nil)
    }

    /// Like ``observeSingleEvent(of:with:)`` with a cancel block.
    public func observeSingleEvent(
        of eventType: DataEventType, with block: @escaping @Sendable (DataSnapshot) -> Void,
        withCancel cancelBlock: (@Sendable (any Error) -> Void)?
    ) {
        attach(eventType, single: true, onEvent: { snapshot, _ in block(snapshot) }, onCancel: cancelBlock)
    }

    /// Like ``observeSingleEvent(of:andPreviousSiblingKeyWith:)`` with a cancel block.
    public func observeSingleEvent(
        of eventType: DataEventType,
        andPreviousSiblingKeyWith block: @escaping @Sendable (DataSnapshot, String?) -> Void,
        withCancel cancelBlock: (@Sendable (any Error) -> Void)?
    ) {
        attach(eventType, single: true, onEvent: block, onCancel: cancelBlock)
    }

    /// The first event of `eventType`, awaited.
    ///
    /// - Throws: the listen's error (``DatabaseError``), or `CancellationError` when the
    ///   calling task is cancelled first (the observer is then removed).
    public func observeSingleEvent(of eventType: DataEventType) async throws -> DataSnapshot {
        try await observeSingleEventAndPreviousSiblingKey(of: eventType).0
    }

    /// The first event of `eventType` and its previous sibling's key, awaited.
    ///
    /// - Throws: as ``observeSingleEvent(of:)``.
    public func observeSingleEventAndPreviousSiblingKey(of eventType: DataEventType) async throws -> (
        DataSnapshot, String?
    ) {
        let events = events(eventType)
        for try await event in events {
            return (event.snapshot, event.previousSiblingKey)
        }
        throw CancellationError()
    }

    /// Removes the observer that `observe` returned `handle` for (wherever it is attached;
    /// handles are unique). Unknown handles are ignored. ``keepSynced(_:)`` is unaffected.
    public func removeObserver(withHandle handle: DatabaseHandle) {
        database.post { await $0.removeObserver(withHandle: UInt(handle)) }
    }

    /// Removes the observers of this query. On a plain reference (the default query) that
    /// is every observer at this location, whatever its order or range; on an ordered or
    /// filtered query only that query's observers. Observers at other locations (children,
    /// parents) and ``keepSynced(_:)`` stay.
    public func removeAllObservers() {
        let spec = self.spec
        database.post { await $0.removeAllObservers(for: spec) }
    }

    /// Keeps this query's data synchronized (listened to and cached) even without
    /// observers, or stops doing so. Observers are unaffected. `.info` locations cannot be
    /// kept synced (a warning is written to standard error).
    ///
    /// Pins are counted per query, not per call site: each `keepSynced(true)` adds a pin,
    /// each `keepSynced(false)` removes one (never below zero), and the query stays synced
    /// while at least one pin remains — two parts of an app can pin the same query and
    /// release it independently.
    public func keepSynced(_ keepSynced: Bool) {
        if let error = validationError ?? infoPinError() {
            Database.warn("keepSynced(\(keepSynced)) ignored: \(error.message)")
            return
        }
        let spec = self.spec
        database.post { engine in
            do {
                try await engine.keepSynced(spec, keepSynced)
            } catch {
                Database.warn("keepSynced(\(keepSynced)) ignored: \(DatabaseError(validating: error).message)")
            }
        }
    }

    private func infoPinError() -> DatabaseError? {
        guard path.front?.string == ".info" else { return nil }
        return .invalidArgument("Can't keep \(path.wireString) synced: .info locations are local")
    }

    // MARK: - Reading once

    /// Reads the query's current value: server first, then the cache, else an error.
    ///
    /// When connected, the server is asked and its answer returned (and cached). When not
    /// connected, a value the client already knows completely (listened to, kept synced or
    /// written locally) is returned at once; otherwise the read waits a bounded time (3 s)
    /// for a connection, then answers from the cache if it has become complete, or fails
    /// with `DatabaseError.Code.offline` — it never waits indefinitely. The completion gets
    /// the snapshot or the error. ``observeSingleEvent(of:with:)`` instead answers from
    /// memory at once whenever the value is known.
    public func getData(completion: @escaping @Sendable ((any Error)?, DataSnapshot?) -> Void) {
        if let validationError {
            database.deliver { completion(validationError, nil) }
            return
        }
        let spec = self.spec
        let database = self.database
        let ref = self.ref
        database.post { engine in
            await engine.getData(spec) { result in
                switch result {
                case .success(let node):
                    completion(nil, DataSnapshot(node: node, ref: ref, index: spec.params.index))
                case .failure(let error):
                    completion(error, nil)
                }
            }
        }
    }

    /// Reads the query's current value; see ``getData(completion:)``.
    ///
    /// - Throws: ``DatabaseError`` (`DatabaseError.Code.offline` when neither the server
    ///   nor the cache can answer).
    public func getData() async throws -> DataSnapshot {
        try await withCheckedThrowingContinuation { continuation in
            getData { error, snapshot in
                if let snapshot {
                    continuation.resume(returning: snapshot)
                } else {
                    continuation.resume(throwing: error ?? DatabaseError(.offline))
                }
            }
        }
    }

    // MARK: - Streams

    /// The query's value, every time it changes, as an asynchronous sequence.
    ///
    /// Each access attaches a `.value` observer for the returned sequence; it is removed
    /// when the iterating task ends, is cancelled or stops iterating (or when the sequence is
    /// dropped). The sequence throws the listen's error (for example
    /// `permission_denied`) and ends.
    public var values: AsyncThrowingStream<DataSnapshot, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DataSnapshot.self)
        let handle = attach(
            .value, single: false,
            onEvent: { snapshot, _ in continuation.yield(snapshot) },
            onCancel: { continuation.finish(throwing: $0) })
        continuation.onTermination = { [self] _ in removeObserver(withHandle: handle) }
        return stream
    }

    /// Events of `eventType` with their previous sibling's key, as an asynchronous
    /// sequence; the observer is detached when the iterating task ends or is cancelled.
    public func events(
        _ eventType: DataEventType
    ) -> AsyncThrowingStream<(snapshot: DataSnapshot, previousSiblingKey: String?), any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: (snapshot: DataSnapshot, previousSiblingKey: String?).self)
        let handle = attach(
            eventType, single: false,
            onEvent: { snapshot, previous in continuation.yield((snapshot, previous)) },
            onCancel: { continuation.finish(throwing: $0) })
        continuation.onTermination = { [self] _ in removeObserver(withHandle: handle) }
        return stream
    }

    // MARK: - Building queries

    /// This query ordered by the value at `path` below each child (`"age"`, `"address/zip"`).
    public func queryOrdered(byChild path: String) -> DatabaseQuery {
        building { try $0.ordered(byChild: path) }
    }

    /// This query ordered by key.
    public func queryOrderedByKey() -> DatabaseQuery {
        building { try $0.ordered(by: .key) }
    }

    /// This query ordered by the children's values.
    public func queryOrderedByValue() -> DatabaseQuery {
        building { try $0.ordered(by: .value) }
    }

    /// This query ordered by priority (the default order, made explicit).
    public func queryOrderedByPriority() -> DatabaseQuery {
        building { try $0.ordered(by: .priority) }
    }

    /// Children whose ordered value is at or after `startValue` (`nil`, string, number or
    /// boolean).
    public func queryStarting(atValue startValue: Any?) -> DatabaseQuery {
        bounded(startValue, childKey: nil) { try $0.starting(at: $1, childKey: $2) }
    }

    /// Children at or after (`startValue`, `childKey`): ties on the value start at that key.
    public func queryStarting(atValue startValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(startValue, childKey: childKey) { try $0.starting(at: $1, childKey: $2) }
    }

    /// Children whose ordered value is strictly after `startValue`.
    public func queryStarting(afterValue startValue: Any?) -> DatabaseQuery {
        bounded(startValue, childKey: nil) { try $0.starting(after: $1, childKey: $2) }
    }

    /// Children strictly after (`startValue`, `childKey`).
    public func queryStarting(afterValue startValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(startValue, childKey: childKey) { try $0.starting(after: $1, childKey: $2) }
    }

    /// Children whose ordered value is at or before `endValue`.
    public func queryEnding(atValue endValue: Any?) -> DatabaseQuery {
        bounded(endValue, childKey: nil) { try $0.ending(at: $1, childKey: $2) }
    }

    /// Children at or before (`endValue`, `childKey`).
    public func queryEnding(atValue endValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(endValue, childKey: childKey) { try $0.ending(at: $1, childKey: $2) }
    }

    /// Children whose ordered value is strictly before `endValue`.
    public func queryEnding(beforeValue endValue: Any?) -> DatabaseQuery {
        bounded(endValue, childKey: nil) { try $0.ending(before: $1, childKey: $2) }
    }

    /// Children strictly before (`endValue`, `childKey`).
    public func queryEnding(beforeValue endValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(endValue, childKey: childKey) { try $0.ending(before: $1, childKey: $2) }
    }

    /// Children whose ordered value equals `value`.
    public func queryEqual(toValue value: Any?) -> DatabaseQuery {
        bounded(value, childKey: nil) { try $0.equal(to: $1, childKey: $2) }
    }

    /// The child whose ordered value equals `value` and whose key is `childKey`.
    public func queryEqual(toValue value: Any?, childKey: String?) -> DatabaseQuery {
        bounded(value, childKey: childKey) { try $0.equal(to: $1, childKey: $2) }
    }

    /// The first `limit` children of the range (1 ≤ `limit` < 2³¹).
    public func queryLimited(toFirst limit: UInt) -> DatabaseQuery {
        building { try $0.limited(toFirst: Int(clamping: limit)) }
    }

    /// The last `limit` children of the range (1 ≤ `limit` < 2³¹).
    public func queryLimited(toLast limit: UInt) -> DatabaseQuery {
        building { try $0.limited(toLast: Int(clamping: limit)) }
    }

    // MARK: - Internals

    /// A query with new parameters, or carrying the error the builder threw.
    private func building(_ change: (QueryParams) throws -> QueryParams) -> DatabaseQuery {
        if validationError != nil { return self }
        do {
            return DatabaseQuery(database: database, path: path, params: try change(params))
        } catch {
            return DatabaseQuery(
                database: database, path: path, params: params, error: DatabaseError(validating: error),
                locationError: locationError)
        }
    }

    /// A query with a bound set from a user value and key.
    private func bounded(
        _ value: Any?, childKey: String?, _ change: (QueryParams, LeafValue?, ChildKey?) throws -> QueryParams
    ) -> DatabaseQuery {
        let path = self.path
        return building { params in
            let bound = try DatabaseQuery.boundValue(value, at: path)
            var key: ChildKey?
            if let childKey {
                try TreeValidation.validateKey(childKey, in: path)
                key = ChildKey(childKey)
            }
            return try change(params, bound, key)
        }
    }

    /// A bound value: `nil`/`NSNull`, a string, a finite number or a boolean.
    private static func boundValue(_ value: Any?, at path: Path) throws -> LeafValue? {
        switch try NativeValue.json(from: value, at: path) {
        case .null: return nil
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array, .object: throw QueryError.invalidBoundValue
        }
    }

    /// Attaches an observer and returns its handle; an invalid query gets its cancel block
    /// called with the error instead.
    @discardableResult
    func attach(
        _ eventType: DataEventType, single: Bool,
        onEvent: @escaping @Sendable (DataSnapshot, String?) -> Void,
        onCancel: (@Sendable (any Error) -> Void)?
    ) -> DatabaseHandle {
        let database = self.database
        let registration = ObserverRegistration(
            eventTypes: [eventType.engineType], isSingleEvent: single,
            onEvent: { event in
                let ref = DatabaseReference(database: database, path: event.path)
                let snapshot = DataSnapshot(node: event.node, ref: ref, index: event.query.params.index)
                onEvent(snapshot, event.previousChildKey?.string)
            },
            onCancel: onCancel.map { cancel in
                let forward: @Sendable (DatabaseError) -> Void = { error in cancel(error) }
                return forward
            })
        let handle = DatabaseHandle(registration.handle)
        if let validationError {
            if let onCancel {
                database.deliver { onCancel(validationError) }
            } else {
                Database.warn("observe(\(eventType)) at \(path.wireString) dropped: \(validationError.message)")
            }
            return handle
        }
        let spec = self.spec
        database.post { await $0.addObserver(registration, for: spec) }
        return handle
    }
}
