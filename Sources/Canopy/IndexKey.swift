/// A coding key for array positions and synthesized members (`super`).
struct IndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(index: Int) {
        self.stringValue = String(index)
        self.intValue = index
    }

    init(name: String) {
        self.stringValue = name
        self.intValue = nil
    }

    init?(stringValue: String) { self.init(name: stringValue) }

    init?(intValue: Int) { self.init(index: intValue) }
}
