import CanopyTree

/// Who a connection acts as, set by its `auth`, `gauth` and `unauth` requests (protocol.md
/// §3.4.2).
///
/// The server engine records what the client presented; an ``AccessPolicy`` decides what it
/// means. Credentials are not verified by the engine itself.
public struct ConnectionAuth: Sendable, Equatable {
    /// How a credential was presented.
    public enum CredentialKind: Sendable, Equatable {
        /// A Firebase ID token, custom token, mock token or legacy secret (`auth`).
        case firebaseToken
        /// A Google OAuth2 access token (`gauth`); `owner` is the emulator's admin.
        case googleAccessToken
    }

    /// The credential text, or `nil` when unauthenticated.
    public var credential: String?
    /// How ``credential`` was presented.
    public var kind: CredentialKind
    /// The `authvar` object an admin asked rules to see as `auth`, if any.
    public var authVariable: JSONValue?
    /// Whether an admin asked to act as an unauthenticated client (`noauth: true`).
    public var actsUnauthenticated: Bool

    /// An unauthenticated connection.
    public static let unauthenticated = ConnectionAuth(
        credential: nil, kind: .firebaseToken, authVariable: nil, actsUnauthenticated: false)

    /// Creates an authentication state.
    public init(credential: String?, kind: CredentialKind, authVariable: JSONValue?, actsUnauthenticated: Bool) {
        self.credential = credential
        self.kind = kind
        self.authVariable = authVariable
        self.actsUnauthenticated = actsUnauthenticated
    }

    /// Whether a credential is present and the client did not ask to act unauthenticated.
    public var isAuthenticated: Bool { credential != nil && !actsUnauthenticated }
}
