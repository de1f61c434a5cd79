import Crypto

/// A developer team: its 10-character Team ID and the Sign in with Apple keys (`.p8`) its
/// client secrets are signed with.
public struct Team: Sendable {
    /// The Team ID, the `iss` of the team's client secrets.
    public let id: String
    /// Developer keys by Key ID.
    public let developerKeys: [String: DeveloperKey]

    public init(id: String, developerKeys: [DeveloperKey]) {
        self.id = id
        self.developerKeys = Dictionary(developerKeys.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// The public half of a team's Sign in with Apple private key.
public struct DeveloperKey: Sendable {
    /// The 10-character Key ID, the `kid` of client secrets signed with it.
    public let kid: String
    /// The P-256 public key that checks client-secret signatures.
    public let publicKey: P256.Signing.PublicKey
    /// A revoked key no longer authenticates anything.
    public let revoked: Bool
    /// Where the key was read from (a path), for telling a relying party where its `.p8` is.
    public let location: String?

    public init(kid: String, publicKey: P256.Signing.PublicKey, revoked: Bool = false, location: String? = nil) {
        self.kid = kid
        self.publicKey = publicKey
        self.revoked = revoked
        self.location = location
    }
}
