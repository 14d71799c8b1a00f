import CanopyTree

/// A committed write, as fan-out needs to see it: where it landed and which locations it
/// replaced.
enum AppliedWrite: Sendable {
    /// `path` was overwritten.
    case overwrite(Path)
    /// Each `base/relative` was overwritten, atomically.
    case merge(base: Path, relatives: [Path])

    /// The overwritten locations, with a trailing `.priority` folded into its node.
    var locations: [Path] {
        switch self {
        case .overwrite(let path): return [AppliedWrite.node(of: path)]
        case .merge(let base, let relatives): return relatives.map { AppliedWrite.node(of: base.child($0)) }
        }
    }

    /// Whether a write to `locations` changed anything at, above or below `path`.
    static func touches(_ locations: [Path], _ path: Path) -> Bool {
        locations.contains { $0.contains(path) || path.contains($0) }
    }

    /// The node a write path addresses: the path itself, or its parent for `x/.priority`.
    static func node(of path: Path) -> Path {
        if path.back?.isPriority == true, let parent = path.parent { return parent }
        return path
    }
}
