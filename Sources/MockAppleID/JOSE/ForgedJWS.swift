import Crypto
import CryptoExtras
import Foundation

/// Tokens broken in the ways relying parties must refuse, for faults and the RP audit: signed by a key
/// that is not published, with `alg: none`, or HS256 keyed with the public key.
public enum ForgedJWS {
    /// `payload` with the header `{"kid":…,"alg":"none"}` and an empty signature.
    public static func unsigned(payload: JSONValue, kid: String) -> String {
        segment(.object([("kid", .string(kid)), ("alg", .string("none"))])) + "." + segment(payload) + "."
    }

    /// `payload` as HS256 whose HMAC key is `key`'s public key as a careless verifier would take it: the text of
    /// its PEM file (SubjectPublicKeyInfo, ending in a newline, as OpenSSL writes it).
    public static func hs256WithPublicKey(payload: JSONValue, key: SigningKey) -> String {
        let input = segment(.object([("kid", .string(key.kid)), ("alg", .string("HS256"))])) + "." + segment(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data((key.publicKeyPEM + "\n").utf8)))
        return input + "." + Base64URL.encode(Data(mac))
    }

    /// `payload` signed by a key of `key`'s kind that is never published, under `key`'s `kid`.
    public static func signedByUnpublishedKey(payload: JSONValue, posingAs key: SigningKey) throws -> String {
        let unpublished = try key.algorithm == .rs256 ? unpublishedRSA.get() : unpublishedEC.get()
        return try JWS.sign(payload: payload, with: unpublished, headerKID: key.kid)
    }

    /// Made once, when first needed (an RSA key takes a moment to generate).
    private static let unpublishedRSA = Result { try SigningKey(kid: "mockUnpublished", algorithm: .rs256, pem: KeyGenerator.generate(.rsa, kid: nil).pem) }
    private static let unpublishedEC = Result { try SigningKey(kid: "mockUnpublished", algorithm: .es256, pem: KeyGenerator.generate(.ec, kid: nil).pem) }

    private static func segment(_ value: JSONValue) -> String { Base64URL.encode(Array(value.serialized.utf8)) }
}
