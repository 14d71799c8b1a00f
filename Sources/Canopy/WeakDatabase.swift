/// A weak reference to a ``Database``, for the process-wide list that
/// ``DatabaseReference/goOffline()`` and ``DatabaseReference/goOnline()`` walk.
struct WeakDatabase: Sendable {
    weak var database: Database?
}
