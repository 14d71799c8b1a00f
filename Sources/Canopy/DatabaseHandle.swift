/// Identifies an observer for ``DatabaseQuery/removeObserver(withHandle:)``.
///
/// Handles are unique within a ``Database``; `0` is never returned by `observe`.
public typealias DatabaseHandle = UInt
