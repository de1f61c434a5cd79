import Crypto
import CryptoExtras
import Foundation

/// Tokens broken in the ways relying parties must refuse, for faults and the RP audit: signed by a key
/// that is not published (bare, or carrying that key in its header), with `alg: none` (in any spelling, with or
/// without a signature), or HS256 keyed with the public key.
public enum ForgedJWS {
    /// `payload` with the header `{"kid":…,"alg":"none"}` and an empty signature.
    public static func unsigned(payload: JSONValue, kid: String) -> String { unsigned(payload: payload, kid: kid, algorithm: "none") }

    private static func unsigned(payload: JSONValue, kid: String, algorithm: String) -> String {
        segment(.object([("kid", .string(kid)), ("alg", .string(algorithm))])) + "." + segment(payload) + "."
    }

    /// `payload` as HS256 whose HMAC key is `key`'s public key as a careless verifier would take it: the text of
    /// its PEM file (SubjectPublicKeyInfo, ending in a newline, as OpenSSL writes it).
    public static func hs256WithPublicKey(payload: JSONValue, key: SigningKey) -> String {
        hs256(payload: payload, kid: key.kid, secret: Data((key.publicKeyPEM + "\n").utf8))
    }

    /// `payload` as HS256 under `kid`, whose HMAC key is `secret`.
    public static func hs256(payload: JSONValue, kid: String, secret: Data) -> String {
        let input = segment(.object([("kid", .string(kid)), ("alg", .string("HS256"))])) + "." + segment(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
        return input + "." + Base64URL.encode(Data(mac))
    }

    /// `payload` signed by a key of `key`'s kind that is never published, under `key`'s `kid`.
    public static func signedByUnpublishedKey(payload: JSONValue, posingAs key: SigningKey) throws -> String {
        try JWS.sign(payload: payload, with: unpublishedKey(like: key), headerKID: key.kid)
    }

    /// `payload` signed by a never-published key of `key`'s kind, under `key`'s `kid`, with that key's public JWK in the
    /// header (`jwk`, with no `kid` of its own to tell it from the one the header names): a verifier that takes the key a
    /// token carries accepts it.
    public static func carryingItsOwnKey(payload: JSONValue, posingAs key: SigningKey) throws -> String {
        let unpublished = try unpublishedKey(like: key)
        guard case let .object(members) = unpublished.publicJWK else { return try signed(header: .object([]), payload: payload, by: unpublished) }
        let carried = JSONValue.object(members.filter { $0.0 != "kid" })
        let header = JSONValue.object([("kid", .string(key.kid)), ("alg", .string(key.algorithm.rawValue)), ("jwk", carried)])
        return try signed(header: header, payload: payload, by: unpublished)
    }

    /// `payload` under `key`'s `kid` and a header whose `alg` is `algorithm` (such as `NoNe`), with no signature or,
    /// `foreignSignature`, the signature of a never-published key of `key`'s kind (a part that is not empty, and
    /// that no published key verifies).
    public static func declaring(algorithm: String, payload: JSONValue, posingAs key: SigningKey, foreignSignature: Bool) throws -> String {
        guard foreignSignature else { return unsigned(payload: payload, kid: key.kid, algorithm: algorithm) }
        return try signed(header: .object([("kid", .string(key.kid)), ("alg", .string(algorithm))]), payload: payload, by: unpublishedKey(like: key))
    }

    /// The extension ``withUnknownCriticalHeader(payload:key:)`` marks critical.
    public static let unknownCriticalExtension = "urn:mock-appleid:audit-extension"

    /// `payload` signed by `key` (a genuine signature) with a header whose `crit` names an extension no verifier
    /// understands, which RFC 7515 section 4.1.11 has it refuse.
    public static func withUnknownCriticalHeader(payload: JSONValue, key: SigningKey) throws -> String {
        let header = JSONValue.object([("kid", .string(key.kid)), ("alg", .string(key.algorithm.rawValue)),
                                       ("crit", .array([.string(unknownCriticalExtension)])), (unknownCriticalExtension, .bool(true))])
        return try signed(header: header, payload: payload, by: key)
    }

    /// `payload` signed by `key` under another algorithm of its kind: RS512 for an RSA key, ES384 (a SHA-384 digest signed
    /// with the P-256 key) for an EC one, though the key's JWK says RS256 or ES256.
    public static func underOtherAlgorithm(payload: JSONValue, key: SigningKey) throws -> String {
        let (algorithm, sign) = key.otherAlgorithm
        let input = segment(.object([("kid", .string(key.kid)), ("alg", .string(algorithm))])) + "." + segment(payload)
        return input + "." + Base64URL.encode(try sign(Data(input.utf8)))
    }

    /// `header` and `payload`, signed by `key` whatever the header says.
    public static func signed(header: JSONValue, payload: JSONValue, by key: SigningKey) throws -> String {
        let input = segment(header) + "." + segment(payload)
        return input + "." + Base64URL.encode(try key.sign(Data(input.utf8)))
    }

    /// A key of `key`'s kind that is never published.
    private static func unpublishedKey(like key: SigningKey) throws -> SigningKey {
        try key.algorithm == .rs256 ? unpublishedRSA.get() : unpublishedEC.get()
    }

    /// Made once, when first needed (an RSA key takes a moment to generate).
    private static let unpublishedRSA = Result { try SigningKey(kid: "mockUnpublished", algorithm: .rs256, pem: KeyGenerator.generate(.rsa, kid: nil).pem) }
    private static let unpublishedEC = Result { try SigningKey(kid: "mockUnpublished", algorithm: .es256, pem: KeyGenerator.generate(.ec, kid: nil).pem) }

    private static func segment(_ value: JSONValue) -> String { Base64URL.encode(Array(value.serialized.utf8)) }
}
