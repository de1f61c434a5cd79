import Crypto
import CryptoExtras
import Foundation

/// Makes new key files: signing keys for a scenario's `signingKeys`, or a developer `.p8` key.
/// Only the CLI calls this; the server never generates keys at start.
public enum KeyGenerator {
    /// What to generate.
    public enum Kind: String, Sendable, CaseIterable {
        /// RSA 2048 signing key (RS256), like Apple's.
        case rsa
        /// P-256 signing key (ES256).
        case ec
        /// A team's Sign in with Apple private key (`AuthKey_<KID>.p8`, PKCS#8 P-256).
        case p8
    }

    /// A generated key: the file name to use and its PEM text.
    public struct GeneratedKey: Sendable {
        public let kid: String
        public let fileName: String
        public let pem: String
    }

    /// Generates a key of `kind` named `kid` (a random 10-character id when nil).
    public static func generate(_ kind: Kind, kid: String?) throws -> GeneratedKey {
        switch kind {
        case .rsa:
            let kid = kid ?? randomKeyID(uppercase: false)
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return GeneratedKey(kid: kid, fileName: "signing-\(kid).pem", pem: key.pkcs8PEMRepresentation + "\n")
        case .ec:
            let kid = kid ?? randomKeyID(uppercase: false)
            return GeneratedKey(kid: kid, fileName: "signing-\(kid).pem", pem: P256.Signing.PrivateKey().pemRepresentation + "\n")
        case .p8:
            let kid = kid ?? randomKeyID(uppercase: true)
            return GeneratedKey(kid: kid, fileName: "AuthKey_\(kid).p8", pem: P256.Signing.PrivateKey().pemRepresentation + "\n")
        }
    }

    /// 10 characters, like Apple's key ids (uppercase letters and digits for developer keys).
    static func randomKeyID(uppercase: Bool) -> String {
        let alphabet = Array(uppercase ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                       : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<10).map { _ in alphabet.randomElement()! })
    }
}
