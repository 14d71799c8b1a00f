import Foundation

/// A `Date?` property that the server fills in: encoded as the
/// ``ServerValue/timestamp()`` placeholder while `nil`, decoded from milliseconds since 1970.
///
/// ```swift
/// struct Post: Codable {
///     var title: String
///     @ServerTimestamp var createdAt: Date?
/// }
/// try ref.setValue(from: Post(title: "Hello"))   // createdAt becomes the server's time
/// ```
///
/// A non-`nil` date is written as it is (through the encoder's date strategy). A missing or
/// `null` value decodes as `nil`.
@propertyWrapper
public struct ServerTimestamp: Codable, Sendable, Equatable, Hashable {
    /// The date, or `nil` to let the server set it.
    public var wrappedValue: Date?

    /// Creates the wrapper; `nil` (the default) asks the server for its time.
    public init(wrappedValue: Date? = nil) {
        self.wrappedValue = wrappedValue
    }

    /// Reads `nil` for `null`, else a `Date` through the decoder's date strategy.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Date.self)
    }

    /// Writes the timestamp placeholder for `nil`, else the date.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encode([".sv": "timestamp"])
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a missing `@ServerTimestamp` property as `nil` instead of failing.
    public func decode(_ type: ServerTimestamp.Type, forKey key: Key) throws -> ServerTimestamp {
        try decodeIfPresent(type, forKey: key) ?? ServerTimestamp()
    }
}
