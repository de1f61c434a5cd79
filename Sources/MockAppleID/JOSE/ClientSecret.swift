import Crypto
import Foundation

/// Makes `client_secret` JWTs the way a relying party does (ES256 with the team's `.p8` key), for
/// Swift test suites and the embedding helpers.
public struct ClientSecret: Sendable {
    public let teamID: String
    public let keyID: String
    private let key: P256.Signing.PrivateKey

    /// A signer for the team's key; `privateKeyPEM` is the `.p8` file's text.
    public init(teamID: String, keyID: String, privateKeyPEM: String) throws {
        self.teamID = teamID
        self.keyID = keyID
        self.key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    }

    /// The same key presented under another key id (for secrets that name the wrong `kid`).
    public func presenting(keyID: String) -> ClientSecret {
        ClientSecret(teamID: teamID, keyID: keyID, key: key)
    }

    private init(teamID: String, keyID: String, key: P256.Signing.PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
    }

    /// A secret for `clientID` issued at `issuedAt` and valid for `lifetime` seconds.
    public func make(clientID: String, issuedAt: Date, lifetime: TimeInterval = 3600, audience: String = "https://appleid.apple.com") throws -> String {
        let iat = TimeRange.wholeSeconds(issuedAt.timeIntervalSince1970)
        let claims = JSONValue.object([
            ("iss", .string(teamID)),
            ("iat", .int(iat)),
            ("exp", .int(iat &+ TimeRange.wholeSeconds(lifetime))),
            ("aud", .string(audience)),
            ("sub", .string(clientID)),
        ])
        return try Self.sign(header: .object([("alg", .string("ES256")), ("kid", .string(keyID))]), claims: claims, with: key)
    }

    /// Signs arbitrary header and claims with `key` (raw r‖s signature), for building bad secrets in tests.
    public static func sign(header: JSONValue, claims: JSONValue, with key: P256.Signing.PrivateKey) throws -> String {
        let input = Base64URL.encode(header.data) + "." + Base64URL.encode(claims.data)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
