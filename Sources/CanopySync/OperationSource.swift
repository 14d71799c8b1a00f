import CanopyTree

/// Where an operation comes from: the user, the server, or the server answering one tagged
/// query (client-design.md §2.2).
public enum OperationSource: Sendable, Equatable {
    /// A local write (set, update) or its acknowledgement.
    case user
    /// Untagged server data: it applies to every view on its path.
    case server
    /// Server data for one filtering query, identified by its query identifier.
    case taggedQuery(String)

    /// Whether the operation comes from the user.
    public var isFromUser: Bool { self == .user }

    /// Whether the operation comes from the server (tagged or not).
    public var isFromServer: Bool { self != .user }

    /// Whether the data is tagged for one query.
    public var isTagged: Bool { queryIdentifier != nil }

    /// The identifier of the query tagged data is meant for.
    public var queryIdentifier: String? {
        if case .taggedQuery(let identifier) = self { return identifier }
        return nil
    }
}
