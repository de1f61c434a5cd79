import Crypto
import CryptoExtras
import Foundation

/// A private key that signs identity tokens, published in the JWKS under its `kid`.
public struct SigningKey: Sendable, Codable {
    /// The key id in the JWS header and the JWKS.
    public let kid: String
    /// RS256 or ES256.
    public let algorithm: JWSAlgorithm
    /// The public half as a JWK, computed once.
    public let publicJWK: JSONValue
    /// The base64url of the JWS header `{"kid":…,"alg":…}` its tokens carry, made once.
    let headerSegment: String

    private enum Backing: Sendable {
        /// libcrypto's copy signs once it is ready, when libcrypto was chosen as the key was read.
        case rsa(_RSA.Signing.PrivateKey, LibcryptoCopy?)
        case ec(P256.Signing.PrivateKey)
    }

    private let backing: Backing
    /// The PEM text the key was read from (for snapshots).
    private let pem: String

    /// Reads a PEM private key (PKCS#1 or PKCS#8 for RSA, PKCS#8 or SEC1 for P-256).
    public init(kid: String, algorithm: JWSAlgorithm, pem: String) throws {
        self.kid = kid
        self.algorithm = algorithm
        self.pem = pem
        headerSegment = JWS.headerSegment(kid: kid, algorithm: algorithm)
        switch algorithm {
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
            guard key.keySizeInBits >= 2048 else { throw KeyError.rsaKeyTooSmall(key.keySizeInBits) }
            backing = try .rsa(key, Self.libcryptoCopy(of: key, kid: kid))
            let primitives = try key.publicKey.getKeyPrimitives()
            publicJWK = .object([
                ("kty", .string("RSA")),
                ("kid", .string(kid)),
                ("use", .string("sig")),
                ("alg", .string("RS256")),
                ("n", .string(Base64URL.encode(primitives.modulus))),
                ("e", .string(Base64URL.encode(primitives.publicExponent))),
            ])
        case .es256:
            let key = try P256.Signing.PrivateKey(pemRepresentation: pem)
            backing = .ec(key)
            let raw = key.publicKey.rawRepresentation
            publicJWK = .object([
                ("kty", .string("EC")),
                ("kid", .string(kid)),
                ("use", .string("sig")),
                ("alg", .string("ES256")),
                ("crv", .string("P-256")),
                ("x", .string(Base64URL.encode(raw.prefix(32)))),
                ("y", .string(Base64URL.encode(raw.suffix(32)))),
            ])
        }
    }

    /// Signs the JWS signing input; ES256 signatures are raw r‖s as JWS requires.
    public func sign(_ input: Data) throws -> Data {
        switch backing {
        case let .rsa(key, copy):
            // swift-crypto signs until libcrypto's copy is ready, and if libcrypto fails (it never has):
            // the same bytes, only slower.
            if let signature = copy?.ready?.sign(sha256: Array(SHA256.hash(data: input))) { return Data(signature) }
            return try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation
        case let .ec(key):
            return try key.signature(for: input).rawRepresentation
        }
    }

    /// Another algorithm of this key's kind than its own, and how to sign under it: RS512 for an RSA key, ES384 for a
    /// P-256 one (forged tokens only).
    var otherAlgorithm: (name: String, sign: (Data) throws -> Data) {
        switch backing {
        case let .rsa(key, _): return ("RS512", { try key.signature(for: SHA512.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation })
        case let .ec(key): return ("ES384", { try key.signature(for: SHA384.hash(data: $0)).rawRepresentation })
        }
    }

    /// The library this key's RS256 signatures come from now; `nil` for an ES256 key. A key whose libcrypto
    /// copy is not made yet (one that has not signed, or is still being copied) signs with swift-crypto:
    /// ``settled()`` waits for the copy.
    public var rsaLibrary: RSASigning.Library? {
        switch backing {
        case let .rsa(_, copy): return copy?.current == nil ? .swiftCrypto : .libcrypto
        case .ec: return nil
        }
    }

    /// Waits until this key's RS256 library is settled: its libcrypto copy made (started now if the key has
    /// not signed yet), or found impossible (see ``RSASigning/readyLibcryptoInBackground()``). Returns at once
    /// for a key read any other way.
    public func settled() async {
        if case let .rsa(_, copy?) = backing { await copy.settled() }
    }

    /// Whether libcrypto's copy of this RSA key has been started: by a signature or ``settled()``, or at once
    /// when libcrypto was chosen so; `nil` for a key with no copy to make (ES256, or RS256 from swift-crypto
    /// by name).
    var libcryptoCopyStarted: Bool? {
        if case let .rsa(_, copy?) = backing { return copy.started }
        return nil
    }

    /// The public half in PEM (SubjectPublicKeyInfo).
    public var publicKeyPEM: String {
        switch backing {
        case let .rsa(key, _): return key.publicKey.pemRepresentation
        case let .ec(key): return key.publicKey.pemRepresentation
        }
    }

    /// Checks a signature made by this key (used by tests and by the CLI's self-check).
    public func isValidSignature(_ signature: Data, for input: Data) -> Bool {
        switch backing {
        case let .rsa(key, _):
            return key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5)
        case let .ec(key):
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.publicKey.isValidSignature(ecdsa, for: input)
        }
    }

    /// libcrypto's copy of `key` when the process signs with libcrypto: made now, or in the background once
    /// the key first signs; under the automatic choice, only when libcrypto is the faster on this machine.
    /// A copy libcrypto cannot make leaves the key to swift-crypto, unless libcrypto was asked for by name.
    private static func libcryptoCopy(of key: _RSA.Signing.PrivateKey, kid: String) throws -> LibcryptoCopy? {
        switch RSASigning.choice {
        case .named(.swiftCrypto): return nil
        case .automaticInBackground: return LibcryptoCopy(whenWantedOf: key, kid: kid)
        case .automatic: return LibcryptoCopy(of: key, keepingTheFaster: true)
        case .named(.libcrypto):
            guard let copy = LibcryptoCopy(of: key, keepingTheFaster: false) else { throw KeyError.libcryptoFailed }
            return copy
        }
    }

    /// Whether `kid` is 1 to 64 letters, digits, `-` or `_`.
    public static func isValidKeyID(_ kid: String) -> Bool {
        (1...64).contains(kid.utf8.count) && kid.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 95
        }
    }

    private enum CodingKeys: String, CodingKey { case kid, alg, pem }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(kid: container.decode(String.self, forKey: .kid), algorithm: container.decode(JWSAlgorithm.self, forKey: .alg),
                      pem: container.decode(String.self, forKey: .pem))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kid, forKey: .kid)
        try container.encode(algorithm, forKey: .alg)
        try container.encode(pem, forKey: .pem)
    }

    /// Why a key file could not be used.
    public struct KeyError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
        enum Base: Sendable, Hashable {
            case rsaKeyTooSmall(Int)
            case libcryptoFailed
        }

        /// Which of them.
        let base: Base

        public static func rsaKeyTooSmall(_ bits: Int) -> Self { Self(base: .rsaKeyTooSmall(bits)) }
        public static var libcryptoFailed: Self { Self(base: .libcryptoFailed) }

        public var description: String {
            switch base {
            case let .rsaKeyTooSmall(bits): return "RSA key has \(bits) bits; at least 2048 are required"
            case .libcryptoFailed: return "libcrypto, asked for by name, could not sign with the RSA key (serve --rsa-signer swift-crypto or auto signs without it)"
            }
        }
    }
}
