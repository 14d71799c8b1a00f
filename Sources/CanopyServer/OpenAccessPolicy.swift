/// An ``AccessPolicy`` that allows every read and write and never warns.
///
/// The default for development servers and tests; equivalent to rules
/// `{".read": true, ".write": true}`.
public struct OpenAccessPolicy: AccessPolicy {
    /// Creates the policy.
    public init() {}

    /// Always `true`.
    public func allowsRead(_ read: ReadAccess) -> Bool { true }
    /// Always `true`.
    public func allowsWrite(_ write: WriteAccess) -> Bool { true }
    /// Always empty.
    public func listenWarnings(_ read: ReadAccess) -> [String] { [] }
}
