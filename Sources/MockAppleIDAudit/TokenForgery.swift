import Foundation
import MockAppleID

/// The ways the audit breaks an identity token or a notification it delivers itself: claims changed and
/// signed again with Apple's key, a signature broken, signed by the wrong key or under the wrong algorithm.
struct TokenForgery: Sendable {
    /// Apple's signing key now, whose `kid` the forged tokens name.
    let appleKey: SigningKey

    /// The claims of a compact token (nil when it is not one).
    static func claims(of token: String) -> JSONValue? { try? CompactJWS(compact: token).payload }

    /// `claims` signed with Apple's key, as Apple would sign them.
    func signed(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: appleKey) }

    /// `claims` signed with Apple's key, then one bit of the signature flipped.
    func badSignature(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: appleKey, corruptSignature: true) }

    /// `claims` signed with Apple's key under a `kid` that is not published.
    func unknownKid(_ claims: JSONValue) throws -> String { try JWS.sign(payload: claims, with: appleKey, headerKID: AppleIDProvider.unknownKID) }

    /// `claims` signed by a key that is not Apple's, whose header names Apple's `kid`.
    func foreign(_ claims: JSONValue) throws -> String { try ForgedJWS.signedByUnpublishedKey(payload: claims, posingAs: appleKey) }

    /// `{"alg":"none"}` and no signature.
    func algNone(_ claims: JSONValue) -> String { ForgedJWS.unsigned(payload: claims, kid: appleKey.kid) }

    /// `{"alg":"NoNe"}` and no signature: a verifier that compares `none` case-sensitively but takes any spelling as unsigned.
    func algNoneMixedCase(_ claims: JSONValue) throws -> String {
        try ForgedJWS.declaring(algorithm: "NoNe", payload: claims, posingAs: appleKey, foreignSignature: false)
    }

    /// `{"alg":"none"}` with a signature part that no published key verifies: a verifier that takes `none` as
    /// unsigned whatever follows it.
    func algNoneSigned(_ claims: JSONValue) throws -> String {
        try ForgedJWS.declaring(algorithm: "none", payload: claims, posingAs: appleKey, foreignSignature: true)
    }

    /// Signed by a key that is not Apple's, under Apple's `kid`, with that key in the header (`jwk`).
    func carryingItsOwnKey(_ claims: JSONValue) throws -> String { try ForgedJWS.carryingItsOwnKey(payload: claims, posingAs: appleKey) }

    /// HS256 whose HMAC key is Apple's public key.
    func hs256WithPublicKey(_ claims: JSONValue) -> String { ForgedJWS.hs256WithPublicKey(payload: claims, key: appleKey) }
}
