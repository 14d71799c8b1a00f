/// Why a query could not be built or parsed.
///
/// Builder errors follow client-design.md §6.8; wire and REST errors are what a server
/// reports for a malformed listen or query string.
public enum QueryError: Error, Sendable, Equatable {
    /// An order was already chosen; a query takes one `orderBy`.
    case indexAlreadySet
    /// A start bound was already set (`startAt`, `startAfter` or `equalTo`).
    case startAlreadySet
    /// An end bound was already set (`endAt`, `endBefore` or `equalTo`).
    case endAlreadySet
    /// A limit was already set; a query takes one limit.
    case limitAlreadySet
    /// The limit is not in 1…2³¹−1 (0 is accepted only from the wire and REST).
    case invalidLimit(Int64)
    /// The child path of `orderByChild` is empty, reserved or has an invalid key.
    case invalidIndexPath(String)
    /// With the key index a bound must be a string.
    case keyIndexBoundNotString
    /// With the key index a bound takes no key argument.
    case keyIndexBoundWithKey
    /// With the priority index a bound must be a valid priority: `null`, a string or a number.
    case invalidPriorityBound
    /// A bound value must be `null`, a string, a finite number or a boolean.
    case invalidBoundValue
    /// A wire query object (protocol.md §5.1) is malformed; the text says how.
    case invalidWireObject(String)
    /// A REST query parameter (protocol.md §11.4) is malformed.
    case invalidRESTParameter(name: String, reason: String)
    /// REST query parameters other than `orderBy` were given without `orderBy`.
    case orderByRequired
}

extension QueryError: CustomStringConvertible {
    /// A message in the style of the reference clients and the REST API.
    public var description: String {
        switch self {
        case .indexAlreadySet: return "You can't combine multiple orderBy calls."
        case .startAlreadySet: return "Can't combine startAt(), startAfter() or equalTo(): a start was already set."
        case .endAlreadySet: return "Can't combine endAt(), endBefore() or equalTo(): an end was already set."
        case .limitAlreadySet: return "Limit was already set (by another call to limitToFirst or limitToLast)."
        case .invalidLimit(let n): return "Limit must be a positive integer below 2^31, got \(n)."
        case .invalidIndexPath(let p): return "Invalid orderByChild path \"\(p)\"."
        case .keyIndexBoundNotString:
            return
                "When ordering by key, the argument passed to startAt(), startAfter(), endAt(), endBefore(), or equalTo() must be a string."
        case .keyIndexBoundWithKey:
            return "When ordering by key, you may only pass one argument to startAt(), endAt(), or equalTo()."
        case .invalidPriorityBound:
            return
                "When ordering by priority, the first argument passed to startAt(), startAfter(), endAt(), endBefore(), or equalTo() must be a valid priority value (null, a number, or a string)."
        case .invalidBoundValue: return "Query bounds must be null, a string, a number or a boolean."
        case .invalidWireObject(let why): return "Invalid query object: \(why)"
        case .invalidRESTParameter(let name, let why): return "Invalid query parameter \(name): \(why)"
        case .orderByRequired: return "orderBy must be defined when other query parameters are defined"
        }
    }
}
