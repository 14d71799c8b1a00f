import CanopyTree

/// A state change entering a sync tree, at a path relative to where it is being applied
/// (client-design.md §2.2).
public struct Operation: Sendable {
    /// What the operation does.
    public enum Kind: Sendable {
        /// Replace the data at the path.
        case overwrite(Node)
        /// Replace each listed relative path below the path, leaving siblings alone.
        case merge(ImmutableTree<Node>)
        /// A user write left the write tree: confirmed (`revert == false`) or rolled back.
        /// The tree marks the paths the write touched (a value at the root for an overwrite,
        /// one per child for a merge).
        case ackUserWrite(affected: ImmutableTree<Bool>, revert: Bool)
        /// The server finished sending the initial data for a listen.
        case listenComplete
    }

    /// Who caused the operation (acks always come from the user).
    public let source: OperationSource
    /// The path the operation applies at, relative to the current position.
    public let path: Path
    /// The change itself.
    public let kind: Kind

    /// Creates an operation.
    public init(source: OperationSource, path: Path, kind: Kind) {
        self.source = source
        self.path = path
        self.kind = kind
    }

    /// The same operation seen from the child `key` of the current position, or `nil` when
    /// it does not touch that child.
    public func forChild(_ key: ChildKey) -> Operation? {
        if let front = path.front {
            guard front == key else { return nil }
            return Operation(source: source, path: path.popFront, kind: kind)
        }
        switch kind {
        case .overwrite(let node):
            return Operation(source: source, path: .root, kind: .overwrite(node.child(key)))
        case .merge(let children):
            guard let child = children.child(key), !child.isEmpty else { return nil }
            if let node = child.value {
                return Operation(source: source, path: .root, kind: .overwrite(node))
            }
            return Operation(source: source, path: .root, kind: .merge(child))
        case .ackUserWrite(let affected, let revert):
            if affected.value != nil { return self }
            let child = affected.child(key) ?? .empty
            return Operation(source: source, path: .root, kind: .ackUserWrite(affected: child, revert: revert))
        case .listenComplete:
            return self
        }
    }
}
