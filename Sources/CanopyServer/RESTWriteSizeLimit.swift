/// The `writeSizeLimit` query parameter (protocol.md §11.4): the largest write a request
/// accepts, as a target duration that Canopy turns into a byte budget of about 1 MB per
/// second of target.
///
/// The cost of a write is estimated by the size of its body. Writes over the budget are
/// refused with `413` (Canopy's choice; the real server's status is not observable).
enum RESTWriteSizeLimit: String, Sendable, CaseIterable {
    /// Target about 1 s: 1 MB.
    case tiny
    /// Target about 10 s: 10 MB.
    case small
    /// Target about 30 s: 30 MB.
    case medium
    /// Target about 60 s: 60 MB.
    case large
    /// No target: only the server's maximum request size applies.
    case unlimited

    /// The byte budget, or `nil` for ``unlimited``.
    var byteBudget: Int? {
        switch self {
        case .tiny: return 1_000_000
        case .small: return 10_000_000
        case .medium: return 30_000_000
        case .large: return 60_000_000
        case .unlimited: return nil
        }
    }
}
