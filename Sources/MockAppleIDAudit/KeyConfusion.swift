import Crypto
import CryptoExtras
import Foundation
import MockAppleID
import SwiftASN1
import X509

/// The forgeries that confuse a verifier about which key to use: HS256 keyed with each other form of Apple's public
/// key, a `kid` that is a path, a query or a key, and an attacker's certificate in `x5c`. A case with several forms
/// plays each in a sign-in of its own.
struct KeyConfusion: Sendable {
    /// Apple's signing key now, whose `kid` the forged tokens name.
    let appleKey: SigningKey

    /// One form of a case's token, and what it is.
    struct Form: Sendable {
        let label: String
        let token: String
    }

    /// HS256 keyed with Apple's public key as DER (SubjectPublicKeyInfo), as PEM without its final newline, as its JWK's
    /// JSON text, and as the bytes of its modulus (of its `x` for an EC key).
    func hs256KeyForms(_ claims: JSONValue) -> [Form] {
        let pem = appleKey.publicKeyPEM
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = Data(base64Encoded: body) ?? Data()
        let modulus = (appleKey.publicJWK["n"] ?? appleKey.publicJWK["x"])?.stringValue.flatMap(Base64URL.decode) ?? Data()
        let secrets: [(String, Data)] = [("the public key's DER", der), ("its PEM without the final newline", Data(pem.utf8)),
                                         ("its JWK's JSON", Data(appleKey.publicJWK.serialized.utf8)), ("its modulus's bytes", modulus)]
        return secrets.map { Form(label: "HS256 keyed with \($0.0)", token: ForgedJWS.hs256(payload: claims, kid: appleKey.kid, secret: $0.1)) }
    }

    /// A `kid` naming an empty file by path (HS256 keyed with nothing), a `kid` that injects a key into an SQL lookup
    /// (HS256 keyed with what the query returns), and a `kid` that is the attacker's public JWK (signed by that key).
    func kidTricks(_ claims: JSONValue) throws -> [Form] {
        let attacker = try Self.attackerKey.get()
        let jwkHeader = JSONValue.object([("kid", .string(attacker.publicJWK.serialized)), ("alg", .string("RS256"))])
        return [
            Form(label: "kid ../../../../../../../../dev/null, HS256 keyed with nothing",
                 token: ForgedJWS.hs256(payload: claims, kid: "../../../../../../../../dev/null", secret: Data())),
            Form(label: "kid x' UNION SELECT 'mock-appleid-audit, HS256 keyed with mock-appleid-audit",
                 token: ForgedJWS.hs256(payload: claims, kid: "x' UNION SELECT 'mock-appleid-audit", secret: Data("mock-appleid-audit".utf8))),
            Form(label: "kid the attacker's public JWK, signed by that key", token: try ForgedJWS.signed(header: jwkHeader, payload: claims, by: attacker)),
        ]
    }

    /// Signed by the attacker's key under Apple's `kid`, with the attacker's self-signed certificate (its subject
    /// `appleid.apple.com`) in `x5c`.
    func carryingItsCertificate(_ claims: JSONValue) throws -> String {
        let attacker = try Self.attackerKey.get()
        let certificate = try Self.attackerCertificate.get()
        let header = JSONValue.object([("kid", .string(appleKey.kid)), ("alg", .string("RS256")),
                                       ("x5c", .array([.string(certificate.base64EncodedString())]))])
        return try ForgedJWS.signed(header: header, payload: claims, by: attacker)
    }

    /// The attacker's RSA key, made once (an RSA key takes a moment to generate), and its certificate's DER.
    private static let attackerRSA = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }
    private static let attackerKey = Result { try SigningKey(kid: "mockAuditAttacker", algorithm: .rs256, pem: attackerRSA.get().pemRepresentation) }
    private static let attackerCertificate = Result { () throws -> Data in
        let key = Certificate.PrivateKey(try attackerRSA.get())
        let name = try DistinguishedName { CommonName("appleid.apple.com") }
        let now = Date()
        let certificate = try Certificate(version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
                                          notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400 * 365),
                                          issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
                                          extensions: Certificate.Extensions(), issuerPrivateKey: key)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }
}
