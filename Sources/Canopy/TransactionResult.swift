/// What a transaction's update block decides: commit a new value, or abort.
public struct TransactionResult {
    /// The data to commit; `nil` to abort.
    let data: MutableData?

    /// Commits `value` (usually the `MutableData` the block received, after changing it).
    public static func success(withValue value: MutableData) -> TransactionResult {
        TransactionResult(data: value)
    }

    /// Ends the transaction without writing; its completion reports "not committed" with no
    /// error.
    public static func abort() -> TransactionResult {
        TransactionResult(data: nil)
    }

    /// Whether this result commits a value.
    public var isSuccess: Bool { data != nil }
}
