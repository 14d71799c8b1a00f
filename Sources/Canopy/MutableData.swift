import CanopyTree
import Foundation

/// The data at a transaction's location, handed to the transaction's update block to read
/// and change.
///
/// A `MutableData` is a view of one location of a tree the transaction owns:
/// ``childData(byAppendingPath:)`` returns a view of a descendant that writes into the same
/// tree, so `data.childData(byAppendingPath: "stars").value = 3` changes `data.value` too.
///
/// Invalid input never crashes: assigning a value that is not a database value, an invalid
/// priority, or asking for a child at an invalid path records the problem, and the
/// transaction then fails with that ``DatabaseError`` (code
/// `DatabaseError.Code.invalidArgument`) instead of committing. ``validationError`` shows
/// the first such problem.
public final class MutableData {
    /// The tree shared by a transaction's `MutableData` views.
    final class Tree {
        var root: Node
        var error: DatabaseError?

        init(root: Node) { self.root = root }
    }

    let tree: Tree
    /// This view's location relative to the transaction's location.
    let path: Path
    /// The transaction's location, for keys and error messages.
    let basePath: Path

    init(node: Node, at basePath: Path) {
        self.tree = Tree(root: node)
        self.path = .root
        self.basePath = basePath
    }

    private init(tree: Tree, path: Path, basePath: Path) {
        self.tree = tree
        self.path = path
        self.basePath = basePath
    }

    /// The node this view sees.
    var node: Node { tree.root.child(at: path) }

    /// The data at this location in the Foundation form of ``DataSnapshot/value``
    /// (`NSNull` when empty); assigning replaces it, including its priority (use `nil` or
    /// `NSNull()` to remove it).
    public var value: Any? {
        get { NativeValue.object(from: node.valueJSON()) }
        set {
            let location = basePath.child(path)
            do {
                let json = try NativeValue.json(from: newValue, at: location)
                let replacement = try DatabasePath.validatedNode(json, forWriteAt: location)
                tree.root = tree.root.updating(at: path, replacement)
            } catch {
                record(error)
            }
        }
    }

    /// The priority at this location (`NSNull` when none); assigning sets it.
    public var priority: Any? {
        get { NativeValue.object(from: node.priority) }
        set {
            do {
                let priority = try NativeValue.priority(from: newValue, at: basePath.child(path))
                tree.root = tree.root.updating(at: path, node.withPriority(priority))
            } catch {
                record(error)
            }
        }
    }

    /// The key of this location; `nil` for the root of the database.
    public var key: String? {
        basePath.child(path).back?.string
    }

    /// Whether the data has children (is not a leaf or empty).
    public func hasChildren() -> Bool { node.childCount > 0 }

    /// Whether there is data at `path` below this location; `false` for an invalid path.
    public func hasChild(atPath path: String) -> Bool {
        guard let relative = try? DatabasePath.relative(path, below: basePath.child(self.path)) else { return false }
        return !node.child(at: relative).isEmpty
    }

    /// The number of children.
    public var childrenCount: UInt { UInt(node.childCount) }

    /// Views of the children, in key order.
    public var children: [MutableData] {
        node.children.orderedKeys.map { MutableData(tree: tree, path: path.child($0), basePath: basePath) }
    }

    /// A view of the location at `path` below this one (which may not exist yet); writes to
    /// it change this data.
    ///
    /// An invalid `path` records a ``validationError`` (the transaction will fail) and
    /// returns a view of this location.
    public func childData(byAppendingPath path: String) -> MutableData {
        do {
            let relative = try DatabasePath.relative(path, below: basePath.child(self.path))
            return MutableData(tree: tree, path: self.path.child(relative), basePath: basePath)
        } catch {
            record(error)
            return self
        }
    }

    /// The first invalid input given to any view of this transaction's data, if any.
    public var validationError: DatabaseError? { tree.error }

    private func record(_ error: any Error) {
        if tree.error == nil { tree.error = DatabaseError(validating: error) }
    }
}

extension MutableData: CustomStringConvertible {
    /// The key and the value in export form.
    public var description: String {
        "MutableData (\(key ?? "<root>")) \(node.exportJSON().serialized())"
    }
}
