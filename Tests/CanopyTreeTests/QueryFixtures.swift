import CanopyTree

/// Small node builders for the query and server-value tests (independent of JSON parsing).
enum QueryFixtures {
    static func leaf(_ v: LeafValue, priority: LeafValue? = nil) -> Node { Node(leaf: v, priority: priority) }
    static func int(_ i: Int64, priority: LeafValue? = nil) -> Node { Node(leaf: .int(i), priority: priority) }
    static func string(_ s: String, priority: LeafValue? = nil) -> Node { Node(leaf: .string(s), priority: priority) }
    static func object(_ entries: [(ChildKey, Node)], priority: LeafValue? = nil) -> Node {
        Node(children: ChildMap(entries), priority: priority)
    }
    static func parse(_ text: String) throws -> Node { try Node(json: JSONParser.parse(text)) }
    static func keys(_ named: [NamedNode]) -> [String] { named.map(\.key.string) }
    static func keys(_ node: Node) -> [String] { node.children.orderedKeys.map(\.string) }
}
