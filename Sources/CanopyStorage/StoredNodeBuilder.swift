import CanopyTree

/// Reassembles a node from stored rows — one per leaf, one per priority of a children node —
/// visited in byte order of their path keys (so a location's rows are contiguous and come
/// after the row of the location itself).
struct StoredNodeBuilder {
    /// A children node being assembled: the location's escaped key segment and key, the
    /// finished children so far and the priority.
    private struct Frame {
        var segment: ArraySlice<UInt8>
        var key: ChildKey
        var entries: [(ChildKey, Node)] = []
        var priority: LeafValue?
    }

    /// Frame 0 is the location being read; frame i > 0 is at depth i below it.
    private var stack = [Frame(segment: [], key: ChildKey(""))]
    /// A leaf stored at the location itself.
    private var leafAtLocation: Node?
    /// The current row's key segments (kept to reuse its storage).
    private var segments: [ArraySlice<UInt8>] = []

    /// Adds a row: `relativeKey` is the row's path key with the location's prefix removed;
    /// `value` is `nil` for the priority row of a children node.
    mutating func add(relativeKey: ArraySlice<UInt8>, value: LeafValue?, priority: LeafValue?) throws(StorageError) {
        try StoragePathKey.segments(relativeKey, into: &segments)
        guard let last = segments.last else {
            if let value {
                leafAtLocation = Node(leaf: value, priority: priority)
            } else {
                stack[0].priority = priority
            }
            return
        }
        // A leaf goes into its parent's frame; a priority row sets its own frame's priority.
        let frameDepth = value == nil ? segments.count : segments.count - 1
        var depth = 0
        while depth + 1 < stack.count, depth < frameDepth, stack[depth + 1].segment == segments[depth] {
            depth += 1
        }
        while stack.count > depth + 1 { popFrame() }
        for index in depth..<frameDepth {
            stack.append(Frame(segment: segments[index], key: try StoragePathKey.key(segments[index])))
        }
        if let value {
            let key = try StoragePathKey.key(last)
            stack[stack.count - 1].entries.append((key, Node(leaf: value, priority: priority)))
        } else {
            stack[stack.count - 1].priority = priority
        }
    }

    /// The assembled node.
    mutating func finish() -> Node {
        if let leafAtLocation { return leafAtLocation }
        while stack.count > 1 { popFrame() }
        return Node(children: ChildMap(stack[0].entries), priority: stack[0].priority)
    }

    private mutating func popFrame() {
        let frame = stack.removeLast()
        let node = Node(children: ChildMap(frame.entries), priority: frame.priority)
        if !node.isEmpty { stack[stack.count - 1].entries.append((frame.key, node)) }
    }
}
