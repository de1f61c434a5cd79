import Foundation

/// A persona's consent to an app group, given once at first sign-in and kept until revoked.
/// What it granted (name, email and the share/hide choice) shapes every later token.
public struct Consent: Sendable, Equatable, Codable {
    public let personaID: String
    public let groupID: String
    /// Scopes granted at first consent; `email` only if the persona had an address to give.
    public let scopes: Set<Scope>
    public let emailChoice: EmailChoice
    public let grantedAt: Date

    /// Whether tokens under this consent carry the team's relay address (the email was granted and hidden).
    public var usesRelayAddress: Bool { emailChoice == .hide && scopes.contains(.email) }
}

/// Identifies a consent: one per persona per app group.
struct ConsentKey: Hashable, Sendable, Codable {
    let personaID: String
    let groupID: String
}
