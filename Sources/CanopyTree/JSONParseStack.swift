/// The values of the arrays (or members of the objects) ``JSONParser`` is in the middle of,
/// innermost last; a finished array or object moves its part out into storage of exactly
/// the right size.
struct JSONParseStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity = 64
    /// How many elements the stack holds.
    private(set) var count = 0

    /// An empty stack with room for 64 elements.
    init() {
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Pushes `element`, doubling the storage when it is full.
    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// Moves the elements from `start` to the top of the stack into a new array.
    mutating func pop(from start: Int) -> [Element] {
        let popped = count - start
        let source = storage + start
        count = start
        // `reserveCapacity` + `append` specialize fully; `init(unsafeUninitializedCapacity:)`
        // would look up the array's generic metadata on every call.
        var elements: [Element] = []
        elements.reserveCapacity(popped)
        for offset in 0..<popped { elements.append((source + offset).move()) }
        return elements
    }
}
