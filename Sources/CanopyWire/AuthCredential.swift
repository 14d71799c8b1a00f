import CanopyTree

/// The body of an `auth` or `gauth` request (protocol.md §3.4.2).
public struct AuthCredential: Sendable, Equatable {
    /// The token (`cred`): an ID token, a legacy secret, a custom or mock JWT, an OAuth2
    /// access token, or the emulator's `owner`.
    public var credential: String
    /// The admin's `databaseAuthVariableOverride` (`authvar`): rules see it as `auth`.
    public var authVariable: JSONValue?
    /// `noauth: true`: the admin acts as an unauthenticated client.
    public var actsUnauthenticated: Bool

    /// Creates a credential body.
    public init(credential: String, authVariable: JSONValue? = nil, actsUnauthenticated: Bool = false) {
        self.credential = credential
        self.authVariable = authVariable
        self.actsUnauthenticated = actsUnauthenticated
    }

    /// The body object `{"cred":…[,"authvar":…][,"noauth":true]}`.
    public var jsonValue: JSONValue {
        .members([
            ("cred", .string(credential)),
            ("authvar", authVariable),
            ("noauth", actsUnauthenticated ? .bool(true) : nil),
        ])
    }

    init(fields: MessageFields) throws(WireError) {
        self.init(
            credential: try fields.string("cred"),
            authVariable: fields["authvar"].flatMap { $0 == .null ? nil : $0 },
            actsUnauthenticated: try fields.optionalBool("noauth") ?? false)
    }
}
