import Crypto
import Foundation

/// A developer team: its 10-character Team ID and the Sign in with Apple keys (`.p8`) its
/// client secrets are signed with.
public struct Team: Sendable, Codable {
    /// The Team ID, the `iss` of the team's client secrets.
    public let id: String
    /// Developer keys by Key ID.
    public let developerKeys: [String: DeveloperKey]
    /// The domains and addresses registered as email sources: the private relay takes mail only from them.
    public internal(set) var emailSources: [String]

    public init(id: String, developerKeys: [DeveloperKey], emailSources: [String] = []) {
        self.id = id
        self.developerKeys = Dictionary(developerKeys.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
        self.emailSources = emailSources
    }

    /// Whether `sender` is a registered source: the address itself, or its domain (exactly; a
    /// subdomain is registered on its own, as Apple's).
    public func acceptsMail(from sender: String) -> Bool {
        let sender = sender.lowercased()
        guard let at = sender.lastIndex(of: "@") else { return false }
        let domain = sender[sender.index(after: at)...]
        return emailSources.contains { source in source.contains("@" as Character) ? source == sender : source == domain }
    }

    /// The most email sources a team registers (Apple's limit for organizations).
    public static let emailSourceLimit = 100

    /// Lower-cased, de-duplicated sources; each a domain (`mail.example.com`) or an address.
    static func checkEmailSources(_ sources: [String]) throws(EmailSourceError) -> [String] {
        guard sources.count <= emailSourceLimit else { throw .invalid("at most \(emailSourceLimit) email sources") }
        var cleaned: [String] = []
        for source in sources {
            let value = source.lowercased()
            let domain = value.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
            guard value.utf8.count <= 254, domain.contains("." as Character), !domain.hasPrefix("."), !domain.hasSuffix("."),
                  value.filter({ $0 == "@" }).count <= 1, !value.hasPrefix("@"),
                  value.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "<" && $0 != ">" })
            else { throw .invalid("\"\(source.prefix(80))\" is not a domain or an email address") }
            if !cleaned.contains(value) { cleaned.append(value) }
        }
        return cleaned
    }

    /// A key of this team whose private half is known, for minting client secrets (timelines, the CLI).
    public var secretSigner: ClientSecret? {
        developerKeys.values.sorted { $0.kid < $1.kid }.lazy.filter { !$0.revoked }.compactMap { key in
            key.privateKeyPEM.flatMap { try? ClientSecret(teamID: self.id, keyID: key.kid, privateKeyPEM: $0) }
        }.first
    }
}

/// The public half of a team's Sign in with Apple private key (and the private half, when the
/// scenario ships the `.p8`).
public struct DeveloperKey: Sendable {
    /// The 10-character Key ID, the `kid` of client secrets signed with it.
    public let kid: String
    /// The P-256 public key that checks client-secret signatures.
    public let publicKey: P256.Signing.PublicKey
    /// `publicKey`'s raw x‖y bytes, read once: what a remembered client secret was checked against.
    let rawPublicKey: Data
    /// A revoked key no longer authenticates anything.
    public let revoked: Bool
    /// Where the key was read from (a path), for telling a relying party where its `.p8` is.
    public let location: String?
    /// The `.p8` text when the scenario gave the private key; timelines sign client secrets with it.
    public let privateKeyPEM: String?

    public init(kid: String, publicKey: P256.Signing.PublicKey, revoked: Bool = false, location: String? = nil,
                privateKeyPEM: String? = nil) {
        self.kid = kid
        self.publicKey = publicKey
        self.rawPublicKey = publicKey.rawRepresentation
        self.revoked = revoked
        self.location = location
        self.privateKeyPEM = privateKeyPEM
    }
}

extension DeveloperKey: Codable {
    private enum CodingKeys: String, CodingKey { case kid, publicKey, revoked, location, privateKey }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pem = try container.decode(String.self, forKey: .publicKey)
        try self.init(
            kid: container.decode(String.self, forKey: .kid), publicKey: P256.Signing.PublicKey(pemRepresentation: pem),
            revoked: container.decode(Bool.self, forKey: .revoked), location: container.decodeIfPresent(String.self, forKey: .location),
            privateKeyPEM: container.decodeIfPresent(String.self, forKey: .privateKey))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kid, forKey: .kid)
        try container.encode(publicKey.pemRepresentation, forKey: .publicKey)
        try container.encode(revoked, forKey: .revoked)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(privateKeyPEM, forKey: .privateKey)
    }
}
