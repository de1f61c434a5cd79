/// The JWS algorithms mock-appleid signs and checks with.
public enum JWSAlgorithm: String, Sendable, CaseIterable, Codable {
    /// RSASSA-PKCS1-v1_5 with SHA-256: what Apple signs identity tokens and notifications with.
    case rs256 = "RS256"
    /// ECDSA P-256 with SHA-256, raw r‖s signature: what client secrets must use.
    case es256 = "ES256"
}
