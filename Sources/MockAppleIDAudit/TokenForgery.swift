import Crypto
import CryptoExtras
import Foundation
import MockAppleID

/// The ways the audit breaks an identity token it delivers on the front channel: claims changed and
/// signed again with Apple's key, a signature broken, signed by the wrong key or under the wrong algorithm.
struct TokenForgery: Sendable {
    /// Apple's signing key, whose `kid` the forged tokens name.
    let appleKey: SigningKey
    /// A key of the same kind that `/auth/keys` never publishes.
    let foreignKey: SigningKey

    /// Forges in the name of `appleKey`, signing with `foreignPEM` (a private key of the same kind) where a
    /// token must be signed by someone else.
    init(appleKey: SigningKey, foreignPEM: String) throws {
        self.appleKey = appleKey
        foreignKey = try SigningKey(kid: appleKey.kid, algorithm: appleKey.algorithm, pem: foreignPEM)
    }

    /// A new private key of `algorithm`'s kind, in PEM.
    static func newForeignKey(_ algorithm: JWSAlgorithm) throws -> String {
        try KeyGenerator.generate(algorithm == .rs256 ? .rsa : .ec, kid: nil).pem
    }

    /// The claims of a compact token (nil when it is not one).
    static func claims(of token: String) -> JSONValue? { try? CompactJWS(compact: token).payload }

    /// `claims` signed with Apple's key, as Apple would sign them.
    func signed(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: appleKey) }

    /// `claims` signed with Apple's key, then one bit of the signature flipped.
    func badSignature(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: appleKey, corruptSignature: true) }

    /// `claims` signed with Apple's key under a `kid` that is not published.
    func unknownKid(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: appleKey, headerKID: "AUDITNOKEY") }

    /// `claims` signed by a key that is not Apple's, whose header names Apple's `kid`.
    func foreign(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: foreignKey) }

    /// `{"alg":"none"}` and no signature.
    func algNone(_ claims: JSONValue) -> String {
        segment(.object([("kid", .string(appleKey.kid)), ("alg", .string("none"))])) + "." + segment(claims) + "."
    }

    /// HS256 whose HMAC key is Apple's public key, as a library that takes the algorithm from the
    /// token and a key as bytes would verify it: the PEM text of an RSA key, the JWK's JSON otherwise.
    func hs256WithPublicKey(_ claims: JSONValue) -> String {
        let input = segment(.object([("kid", .string(appleKey.kid)), ("alg", .string("HS256"))])) + "." + segment(claims)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(publicKeyText.utf8)))
        return input + "." + Base64URL.encode(Data(mac))
    }

    private var publicKeyText: String {
        if let n = appleKey.publicJWK["n"]?.stringValue.flatMap({ Base64URL.decode($0) }),
           let e = appleKey.publicJWK["e"]?.stringValue.flatMap({ Base64URL.decode($0) }),
           let key = try? _RSA.Signing.PublicKey(n: n, e: e) {
            return key.pemRepresentation
        }
        return appleKey.publicJWK.serialized
    }

    private func segment(_ value: JSONValue) -> String { Base64URL.encode(Array(value.serialized.utf8)) }
}

extension JSONValue {
    /// This object with `key` set to `value` (nil: removed).
    func setting(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard case var .object(members) = self else { return self }
        if let value {
            if let index = members.firstIndex(where: { $0.0 == key }) { members[index].1 = value } else { members.append((key, value)) }
        } else {
            members.removeAll { $0.0 == key }
        }
        return .object(members)
    }
}
