import Crypto
import Foundation
@testable import MockAppleID
import Testing

/// Apple's client_secret checks, one rejection at a time (docs/apple-reference.md §2.2).
@Suite("client_secret verification")
struct ClientSecretTests {
    let verifier = ClientSecretVerifier(settings: ProviderSettings())
    let directory = try! AppleIDProvider(scenario: Fixtures.scenario()).directory
    let key = try! P256.Signing.PrivateKey(pemRepresentation: Fixtures.file("Keys/AuthKey_MOCKKEY001.p8"))
    let now = Fixtures.start

    var client: Client { directory.client(Fixtures.webClient)! }
    var team: Team { directory.team(of: client)! }

    func claims(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("iss", .string("MOCKTEAM01")), ("iat", .int(Int64(now.timeIntervalSince1970) - 10)),
            ("exp", .int(Int64(now.timeIntervalSince1970) + 3600)), ("aud", .string("https://appleid.apple.com")),
            ("sub", .string(Fixtures.webClient)),
        ]
        for (name, value) in changes {
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
        }
        return .object(members)
    }

    func secret(header: JSONValue = .object([("alg", .string("ES256")), ("kid", .string("MOCKKEY001"))]),
                claims: JSONValue? = nil, key signingKey: P256.Signing.PrivateKey? = nil) -> String {
        try! ClientSecret.sign(header: header, claims: claims ?? self.claims(), with: signingKey ?? key)
    }

    func verify(_ secret: String, team: Team? = nil) -> ClientSecretFailure? {
        verifier.verify(secret, client: client, team: team ?? self.team, now: now).failure
    }

    @Test("a correct secret passes")
    func valid() {
        #expect(verify(secret()) == nil)
        #expect(verify(Fixtures.secret()) == nil)
    }

    @Test("the .p8 pasted as the secret is not a JWT")
    func notAJWT() throws {
        let pasted = try Fixtures.file("Keys/AuthKey_MOCKKEY001.p8")
        guard case .notAJWT = verify(pasted)?.base else { Issue.record("expected notAJWT"); return }
    }

    @Test("alg must be ES256", arguments: ["RS256", "HS256", "none"])
    func algorithm(_ alg: String) {
        #expect(verify(secret(header: .object([("alg", .string(alg)), ("kid", .string("MOCKKEY001"))]))) == .algorithmNotES256(alg))
    }

    @Test("kid is required and must be one of the team's keys")
    func keyID() {
        #expect(verify(secret(header: .object([("alg", .string("ES256"))]))) == .missingKeyID)
        #expect(verify(secret(header: .object([("alg", .string("ES256")), ("kid", .string("OTHERKEY01"))])))
            == .unknownKeyID("OTHERKEY01", team: "MOCKTEAM01"))
    }

    @Test("a revoked key no longer authenticates")
    func revoked() {
        let revokedTeam = Team(id: "MOCKTEAM01", developerKeys: [DeveloperKey(kid: "MOCKKEY001", publicKey: key.publicKey, revoked: true)])
        #expect(verify(secret(), team: revokedTeam) == .revokedKey("MOCKKEY001"))
    }

    @Test("an ASN.1 DER signature is refused even though it is mathematically valid")
    func derSignature() throws {
        let input = Base64URL.encode(JSONValue.object([("alg", .string("ES256")), ("kid", .string("MOCKKEY001"))]).data)
            + "." + Base64URL.encode(claims().data)
        let der = try key.signature(for: Data(input.utf8)).derRepresentation
        #expect(verify(input + "." + Base64URL.encode(der)) == .derSignature)
        #expect(verify(input + "." + Base64URL.encode(Data(repeating: 1, count: 10))) == .signatureLength(10))
    }

    @Test("a signature by another key does not verify")
    func badSignature() {
        #expect(verify(secret(key: P256.Signing.PrivateKey())) == .badSignature("MOCKKEY001"))
    }

    @Test("iss must be the team id")
    func issuer() {
        #expect(verify(secret(claims: claims(["iss": .string("OTHERTEAM1")]))) == .wrongIssuer("OTHERTEAM1", expected: "MOCKTEAM01"))
        #expect(verify(secret(claims: claims(["iss": nil]))) == .wrongIssuer(nil, expected: "MOCKTEAM01"))
    }

    @Test("iss, kid and sub are matched byte for byte: U+212A KELVIN SIGN, which Swift's String equality takes for K, is refused")
    func byteExactIdentifiers() {
        let kelvin = "\u{212A}"
        #expect(kelvin == "K")
        #expect(verify(secret(claims: claims(["iss": .string("MOC\(kelvin)TEAM01")]))) == .wrongIssuer("MOC\(kelvin)TEAM01", expected: "MOCKTEAM01"))
        #expect(verify(secret(header: .object([("alg", .string("ES256")), ("kid", .string("MOC\(kelvin)KEY001"))])))
            == .unknownKeyID("MOC\(kelvin)KEY001", team: "MOCKTEAM01"))
        let kiosk = Client(id: "com.example.Kiosk", kind: .web, groupID: client.groupID, teamID: "MOCKTEAM01", returnURLs: [])
        func verifyKiosk(_ sub: String) -> ClientSecretFailure? {
            verifier.verify(secret(claims: claims(["sub": .string(sub)])), client: kiosk, team: team, now: now).failure
        }
        #expect(verifyKiosk("com.example.Kiosk") == nil)
        #expect(verifyKiosk("com.example.\(kelvin)iosk") == .wrongSubject("com.example.\(kelvin)iosk", expected: "com.example.Kiosk"))
    }

    @Test("sub must equal client_id, case-sensitively")
    func subject() {
        #expect(verify(secret(claims: claims(["sub": .string("com.example.app")]))) == .wrongSubject("com.example.app", expected: Fixtures.webClient))
        #expect(verify(secret(claims: claims(["sub": .string("COM.EXAMPLE.WEB")]))) != nil)
    }

    @Test("aud must be https://appleid.apple.com")
    func audience() {
        #expect(verify(secret(claims: claims(["aud": .string("https://appleid.apple.com/")]))) != nil)
        #expect(verify(secret(claims: claims(["aud": nil]))) == .wrongAudience(nil, expected: "https://appleid.apple.com"))
        #expect(verify(secret(claims: claims(["aud": .array([.string("https://appleid.apple.com")])]))) == nil)
    }

    @Test("iat may be at most 60 s in the future")
    func issuedAt() {
        let nowSeconds = Int64(now.timeIntervalSince1970)
        #expect(verify(secret(claims: claims(["iat": nil]))) == .missingIssuedAt)
        #expect(verify(secret(claims: claims(["iat": .int(nowSeconds + 60)]))) == nil)
        #expect(verify(secret(claims: claims(["iat": .int(nowSeconds + 61)]))) == .issuedInFuture(seconds: 61))
    }

    @Test("exp must be in the future and at most 15,777,000 s ahead of Apple's clock")
    func expiry() {
        let nowSeconds = Int64(now.timeIntervalSince1970)
        #expect(verify(secret(claims: claims(["exp": nil]))) == .missingExpiry)
        #expect(verify(secret(claims: claims(["exp": .int(nowSeconds)]))) == .expired(secondsAgo: 0))
        #expect(verify(secret(claims: claims(["exp": .int(nowSeconds - 5)]))) == .expired(secondsAgo: 5))
        #expect(verify(secret(claims: claims(["exp": .int(nowSeconds + 15_777_000)]))) == nil)
        #expect(verify(secret(claims: claims(["exp": .int(nowSeconds + 15_777_001)])))
            == .lifetimeTooLong(seconds: 15_777_001, limit: 15_777_000))
    }

    @Test("a secret that passed once is checked again against the team's keys and the clock of the moment")
    func repeatedSecret() {
        let reused = secret()
        #expect(verify(reused) == nil)
        #expect(verify(reused) == nil)
        let revokedTeam = Team(id: "MOCKTEAM01", developerKeys: [DeveloperKey(kid: "MOCKKEY001", publicKey: key.publicKey, revoked: true)])
        #expect(verify(reused, team: revokedTeam) == .revokedKey("MOCKKEY001"))
        let replacedKey = Team(id: "MOCKTEAM01", developerKeys: [DeveloperKey(kid: "MOCKKEY001", publicKey: P256.Signing.PrivateKey().publicKey)])
        #expect(verify(reused, team: replacedKey) == .badSignature("MOCKKEY001"))
        #expect(verify(reused, team: Team(id: "MOCKTEAM01", developerKeys: [])) == .unknownKeyID("MOCKKEY001", team: "MOCKTEAM01"))
        let otherTeam = Team(id: "OTHERTEAM1", developerKeys: Array(team.developerKeys.values))
        #expect(verify(reused, team: otherTeam) == .wrongIssuer("MOCKTEAM01", expected: "OTHERTEAM1"))
        #expect(verifier.verify(reused, client: client, team: team, now: now.addingTimeInterval(7200)).failure == .expired(secondsAgo: 3600))
        #expect(verify(reused) == nil)
    }

    @Test("a verified secret is remembered by its bytes and used; failures are not remembered; at most 64 are kept")
    func rememberedSecrets() throws {
        let verifier = ClientSecretVerifier(settings: ProviderSettings())
        // The Kelvin check below needs a K; only the signature varies between these secrets, and it may have none.
        let good = try #require((0..<50).lazy.map { _ in secret() }.first { $0.contains("K") })
        #expect(verifier.verify(good, client: client, team: team, now: now).failure == nil)
        #expect(verifier.signedSecrets.entry(for: good)?.kid == "MOCKKEY001")
        let forged = secret(key: P256.Signing.PrivateKey())
        #expect(verifier.verify(forged, client: client, team: team, now: now).failure == .badSignature("MOCKKEY001"))
        #expect(verifier.signedSecrets.entry(for: forged) == nil)
        // Canonically equivalent to the good secret as a String, but other bytes: a full check refuses it.
        let kelvin = try #require(good.firstIndex(of: "K").map { good.replacingCharacters(in: $0...$0, with: "\u{212A}") })
        #expect(kelvin == good && !kelvin.utf8.elementsEqual(good.utf8))
        #expect(verifier.signedSecrets.entry(for: kelvin) == nil)
        guard case .notAJWT = verifier.verify(kelvin, client: client, team: team, now: now).failure?.base else {
            Issue.record("a secret with the Kelvin sign was not refused as malformed"); return
        }
        // A remembered secret is not checked again: one remembered by hand passes without a valid signature.
        verifier.signedSecrets.remember(forged, .init(kid: "MOCKKEY001", publicKey: team.developerKeys["MOCKKEY001"]!.rawPublicKey, claims: claims()))
        #expect(verifier.verify(forged, client: client, team: team, now: now).failure == nil)
        for offset in 0..<SignedSecretCache.capacity {
            let fresh = secret(claims: claims(["iat": .int(Int64(now.timeIntervalSince1970) - 20 - Int64(offset))]))
            #expect(verifier.verify(fresh, client: client, team: team, now: now).failure == nil)
        }
        #expect(verifier.signedSecrets.count <= SignedSecretCache.capacity)
    }

    @Test("every failure explains itself in words")
    func descriptions() {
        #expect(ClientSecretFailure.derSignature.description.contains("DER"))
        #expect(ClientSecretFailure.issuedInFuture(seconds: 90).description.contains("90 s in the future"))
    }
}
