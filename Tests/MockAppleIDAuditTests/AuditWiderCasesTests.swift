import Crypto
import CryptoExtras
import Foundation
import MockAppleID
@testable import MockAppleIDAudit
import Testing

@Suite("The audit's wider cases: the request, claims Apple never sends, headers, notification types")
struct AuditWiderCasesTests {
    private func verdict(_ outcome: CaseRunner.Outcome) -> Verdict? {
        if case let .judged(verdict, _, _) = outcome { return verdict }
        return nil
    }

    @Test("the authorize request: state present and of 128 bits, fresh values, https off loopback, PKCE S256")
    func request() {
        #expect(verdict(RequestRules.state(nil)) == .fail)
        #expect(verdict(RequestRules.state("")) == .fail)
        #expect(verdict(RequestRules.state("abc123")) == .warn)
        #expect(verdict(RequestRules.state(String(repeating: "7", count: 20))) == .warn)  // 20 digits: 66 bits
        #expect(verdict(RequestRules.state("q8Xf2Lw_Zr0pN4tYb-7KcVe1Hs")) == .pass)  // 26 base64url characters: 156 bits
        #expect(verdict(RequestRules.state(String(repeating: "ab12", count: 8))) == .pass)  // 32 hex digits: 128 bits
        #expect(RequestRules.estimatedBits("0123456789abcdef") == 64)
        #expect(RequestRules.estimatedBits("0f8fad5b-d9cb-469f-a165-70867728950e") == 122)  // a UUID: 122 random bits
        #expect(verdict(RequestRules.state("0f8fad5b-d9cb-469f-a165-70867728950e")) == .warn)
        #expect(verdict(RequestRules.fresh("state", first: "a", second: "a")) == .fail)
        #expect(verdict(RequestRules.fresh("state", first: "a", second: nil)) == .fail)
        #expect(verdict(RequestRules.fresh("nonce", first: "a", second: "b")) == .pass)
        #expect(verdict(RequestRules.redirectURI("http://app.example.com/callback")) == .fail)
        #expect(verdict(RequestRules.redirectURI("https://app.example.com/callback")) == .pass)
        #expect(verdict(RequestRules.redirectURI("http://127.0.0.1:8000/callback")) == .pass)
        #expect(verdict(RequestRules.redirectURI("http://[::1]:8000/callback")) == .pass)
        #expect(verdict(RequestRules.redirectURI("http://localhost/callback")) == .pass)
        #expect(verdict(RequestRules.redirectURI("HTTP://127.0.0.1/callback")) == .pass)
        #expect(verdict(RequestRules.redirectURI("http://[0:0:0:0:0:0:0:1]:8000/callback")) == .pass)
        #expect(verdict(RequestRules.redirectURI("http://127.attacker.example/callback")) == .fail)
        #expect(verdict(RequestRules.redirectURI("http://0127.0.0.1/callback")) == .fail)
        #expect(verdict(RequestRules.redirectURI("com.example.app:/callback")) == .fail)
        #expect(verdict(RequestRules.redirectURI(nil)) == .fail)
        #expect(verdict(RequestRules.pkce(challenge: nil, method: nil)) == .warn)
        #expect(verdict(RequestRules.pkce(challenge: "x", method: nil)) == .warn)
        #expect(verdict(RequestRules.pkce(challenge: "x", method: "plain")) == .warn)
        #expect(verdict(RequestRules.pkce(challenge: "x", method: "S256")) == .pass)
    }

    @Test("claims reshaped: iat a week ago with exp kept, exp 1e20, an expired exp as a string")
    func reshapedClaims() {
        let now: Int64 = 1_800_000_000
        let claims = JSONValue.object([("iss", .string("https://appleid.apple.com")), ("exp", .int(now + 86_400)), ("iat", .int(now))])
        let stale = IdentityTokenClaims.reshaping(claims, as: .issuedLongAgo)
        #expect(stale["iat"] == .int(now - 7 * 86_400) && stale["exp"] == .int(now + 86_400))
        let huge = IdentityTokenClaims.reshaping(claims, as: .expiryFarFuture)
        #expect(huge.serialized.contains("\"exp\":1e+20"))
        let asString = IdentityTokenClaims.reshaping(claims, as: .expiryAsString)
        #expect(asString["exp"] == .string(String(now - 3600)) && asString["iat"] == .int(now - 3600 - 86_400))
        #expect(IdentityTokenClaims.reshaping(claims, as: .expired) == claims)
    }

    @Test("a crit header and another algorithm: both signed by the published key, as their headers say")
    func signedByApplesKeyWithOddHeaders() throws {
        let provider = try AppleIDProvider(scenario: try BuiltInScenario.load())
        let key = provider.keyRing().active
        let claims = JSONValue.object([("sub", .string("x"))])
        let critical = try CompactJWS(compact: try ForgedJWS.withUnknownCriticalHeader(payload: claims, key: key))
        #expect(critical.header["crit"] == .array([.string(ForgedJWS.unknownCriticalExtension)]))
        #expect(critical.header["kid"]?.stringValue == key.kid)
        #expect(key.isValidSignature(critical.signature, for: critical.signingInput))

        let other = try CompactJWS(compact: try ForgedJWS.underOtherAlgorithm(payload: claims, key: key))
        #expect(other.header["alg"]?.stringValue == "RS512")
        #expect(!key.isValidSignature(other.signature, for: other.signingInput))
        let publicKey = try _RSA.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)
        #expect(publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: other.signature),
                                           for: SHA512.hash(data: other.signingInput), padding: .insecurePKCS1v1_5))
    }

    @Test("each token endpoint case has its own fault, and each front-channel case with a twin there names the same one")
    func faultsOfTheCases() {
        let tokenCases = AuditCase.allCases.filter { $0.id.hasPrefix("token_id_token.") }
        let faults = tokenCases.compactMap(\.tokenEndpointFault)
        #expect(faults.count == tokenCases.count && Set(faults).count == faults.count)
        #expect(AuditCase.idTokenExpiryFarFuture.twinTokenEndpointFault == .expiryFarFuture)
        #expect(AuditCase.idTokenCodeHash.twinTokenEndpointFault == nil)
        #expect(AuditCase.callbackReplay.tokenEndpointFault == nil)
    }

    @Test("a notification's event type replaced, whether events is a JSON string or an object")
    func eventType() {
        let event = JSONValue.object([("type", .string("consent-revoked")), ("sub", .string("s"))])
        let asString = JSONValue.object([("events", .string(event.serialized))]).withEventType("new-type")
        #expect(asString["events"]?.stringValue.flatMap { JSONValue.parse(Data($0.utf8)) }?["type"] == .string("new-type"))
        let asObject = JSONValue.object([("events", event)]).withEventType("new-type")
        #expect(asObject["events"]?["type"] == .string("new-type") && asObject["events"]?["sub"] == .string("s"))
    }
}

@Suite("The audit's key-confusion forgeries")
struct KeyConfusionTests {
    @Test("HS256 keyed with each other form of Apple's key, three kid tricks, and an attacker's certificate in x5c")
    func forms() throws {
        let provider = try AppleIDProvider(scenario: try BuiltInScenario.load())
        let key = provider.keyRing().active
        let confusion = KeyConfusion(appleKey: key)
        let claims = JSONValue.object([("sub", .string("x"))])

        let forms = confusion.hs256KeyForms(claims)
        #expect(forms.count == 4)
        let der = try _RSA.Signing.PublicKey(pemRepresentation: key.publicKeyPEM).derRepresentation
        let first = try CompactJWS(compact: forms[0].token)
        #expect(first.header["alg"]?.stringValue == "HS256" && first.header["kid"]?.stringValue == key.kid)
        #expect(Data(HMAC<SHA256>.authenticationCode(for: first.signingInput, using: SymmetricKey(data: der))) == first.signature)
        #expect(Set(forms.map(\.token)).count == 4)

        let tricks = try confusion.kidTricks(claims)
        let kids = try tricks.map { try CompactJWS(compact: $0.token).header["kid"]?.stringValue ?? "" }
        #expect(kids[0].hasSuffix("/dev/null") && kids[1].contains("UNION SELECT"))
        #expect(JSONValue.parse(Data(kids[2].utf8))?["kty"] == .string("RSA"))
        let empty = try CompactJWS(compact: tricks[0].token)
        #expect(Data(HMAC<SHA256>.authenticationCode(for: empty.signingInput, using: SymmetricKey(data: Data()))) == empty.signature)

        let carried = try CompactJWS(compact: try confusion.carryingItsCertificate(claims))
        #expect(carried.header["kid"]?.stringValue == key.kid && !key.isValidSignature(carried.signature, for: carried.signingInput))
        guard case let .array(chain) = carried.header["x5c"], let first64 = chain.first?.stringValue, let certificate = Data(base64Encoded: first64) else {
            Issue.record("no x5c chain")
            return
        }
        #expect(certificate.count > 500)
    }
}

@Suite("The audit's look-alike emails")
struct LookalikeEmailTests {
    @Test("one letter of the local part is replaced: by a case-mapping twin first, else a Cyrillic one, and nothing else")
    func lookalike() {
        #expect(CaseRunner.lookalike(of: "jane.appleseed@example.com") == "jane.apple\u{017F}eed@example.com")
        #expect(CaseRunner.lookalike(of: "jane.appleseed@example.com")?.uppercased() == "JANE.APPLESEED@EXAMPLE.COM")
        #expect(CaseRunner.lookalike(of: "xyz@example.com") == "\u{0445}yz@example.com")
        #expect(CaseRunner.lookalike(of: "kate.smith@example.com") == "\u{212A}ate.smith@example.com")
        #expect(CaseRunner.lookalike(of: "kate.smith@example.com", lowerCasedShows: true) == "kate.\u{017F}mith@example.com")
        #expect(CaseRunner.lookalike(of: "bdfg@example.com") == nil)
        #expect(CaseRunner.lookalike(of: "no-at-sign") == nil)
    }
}
