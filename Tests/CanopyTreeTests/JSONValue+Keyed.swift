import CanopyTree

extension JSONValue {
    /// An object from a dictionary-like literal, members in literal order (test shorthand).
    static func keyed(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { JSONMember($0.key, $0.value) })
    }
}
