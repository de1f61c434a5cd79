import Foundation
import MockAppleID
import Testing

/// Identity-token claims as Apple emits them (docs/apple-reference.md §5).
@Suite("identity tokens")
struct IdentityTokenTests {
    /// Claim names in the order the token's payload text has them (parsing does not keep order).
    func claimOrder(_ token: String) -> [String] {
        let payload = String(decoding: Base64URL.decode(token.split(separator: ".")[1])!, as: UTF8.self)
        return payload.matches(of: /"([a-z_]+)":/).map { String($0.output.1) }
    }

    @Test("authorize-endpoint token: c_hash, nonce, auth_time, nonce_supported, in Apple's order")
    func authorizeToken() async throws {
        let provider = try Fixtures.provider()
        let delivery = try provider.signIn("jane")
        let token = try claims(of: delivery["id_token"]!)
        #expect(claimOrder(delivery["id_token"]!) == ["iss", "aud", "exp", "iat", "sub", "nonce", "c_hash", "email", "email_verified", "auth_time", "nonce_supported"])
        #expect(token["c_hash"] == .string(TokenHash.of(delivery["code"]!)))
        #expect(token["iss"] == .string("https://appleid.apple.com"))
        #expect(token["aud"] == .string(Fixtures.webClient))
        #expect(token["nonce"] == .string("n0nce"))
        #expect(token["nonce_supported"] == .bool(true))
        #expect(token["iat"] == .int(Int64(Fixtures.start.timeIntervalSince1970)))
        #expect(token["exp"] == .int(Int64(Fixtures.start.timeIntervalSince1970) + 86_400))
        #expect(token["email_verified"] == .bool(true))
        #expect(token["is_private_email"] == nil)
        #expect(token["real_user_status"] == nil)
    }

    @Test("code-exchange token: at_hash of the access token; refresh token: at_hash only")
    func tokenEndpointTokens() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        try provider.clock.advance(by: 30)
        let body = try provider.exchange(code).get()
        let exchanged = try claims(of: body["id_token"]!.stringValue!)
        #expect(claimOrder(body["id_token"]!.stringValue!) == ["iss", "aud", "exp", "iat", "sub", "nonce", "at_hash", "email", "email_verified", "auth_time", "nonce_supported"])
        #expect(exchanged["at_hash"] == .string(TokenHash.of(body["access_token"]!.stringValue!)))
        #expect(exchanged["auth_time"] == .int(Int64(Fixtures.start.timeIntervalSince1970)))
        #expect(exchanged["iat"] == .int(Int64(Fixtures.start.timeIntervalSince1970) + 30))
        let refreshed = try provider.tokenResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: provider.clock.now), "grant_type": "refresh_token",
            "refresh_token": body["refresh_token"]!.stringValue!,
        ])).get()
        let refreshClaims = try claims(of: refreshed["id_token"]!.stringValue!)
        #expect(claimOrder(refreshed["id_token"]!.stringValue!) == ["iss", "aud", "exp", "iat", "sub", "at_hash", "email", "email_verified"])
        #expect(refreshClaims["at_hash"] == .string(TokenHash.of(refreshed["access_token"]!.stringValue!)))
        #expect(refreshClaims["sub"] == exchanged["sub"])
    }

    @Test("no nonce sent: no nonce claim, nonce_supported still true")
    func noNonce() async throws {
        let provider = try Fixtures.provider()
        let token = try claims(of: try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["nonce": nil]))["id_token"]!)
        #expect(token["nonce"] == nil)
        #expect(token["nonce_supported"] == .bool(true))
    }

    @Test("hidden email: a relay address per team, is_private_email true, same in user and token")
    func hiddenEmail() async throws {
        let provider = try Fixtures.provider()
        let delivery = try provider.signIn("john")
        let token = try claims(of: delivery["id_token"]!)
        let relay = try #require(token["email"]?.stringValue)
        #expect(relay.wholeMatch(of: /[a-z0-9]{10}@private\.icloud\.com/) != nil)
        #expect(token["is_private_email"] == .bool(true))
        #expect(token["email_verified"] == .bool(true))
        #expect(delivery["user"]?.contains(relay) == true)
        #expect(relay == AppleIdentifiers.relayEmail(teamID: "MOCKTEAM01", personaID: "john", domain: .privateICloud))
        #expect(relay != AppleIdentifiers.relayEmail(teamID: "OTHERTEAM1", personaID: "john", domain: .privateICloud))
    }

    @Test("sharing can be overridden on the consent page")
    func chooseToHide() async throws {
        let provider = try Fixtures.provider()
        let token = try claims(of: try provider.signIn("jane", emailChoice: .hide)["id_token"]!)
        #expect(token["email"]?.stringValue?.hasSuffix("@private.icloud.com") == true)
    }

    @Test("email never granted: no email claims at all, now or later")
    func emailNotGranted() async throws {
        let provider = try Fixtures.provider()
        let first = try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["scope": "name"]))
        #expect(first["user"] == #"{"name":{"firstName":"Jane","lastName":"Appleseed"}}"#)
        #expect(try claims(of: first["id_token"]!)["email"] == nil)
        let later = try provider.signIn("jane")
        let token = try claims(of: later["id_token"]!)
        #expect(token["email"] == nil && token["email_verified"] == nil && token["is_private_email"] == nil)
    }

    @Test("an account without email: user has only the name, token has no email")
    func personaWithoutEmail() async throws {
        let provider = try Fixtures.provider()
        let delivery = try provider.signIn("noemail")
        #expect(delivery["user"] == #"{"name":{"firstName":"Nomail","lastName":"Person"}}"#)
        #expect(try claims(of: delivery["id_token"]!)["email"] == nil)
    }

    @Test("managed account: real address, email_verified false, org_id, cannot hide")
    func managed() async throws {
        let provider = try Fixtures.provider()
        let token = try claims(of: try provider.signIn("pat", emailChoice: .hide)["id_token"]!)
        #expect(token["email"] == .string("pat@school.example.edu"))
        #expect(token["email_verified"] == .bool(false))
        #expect(token["org_id"] == .string("org.example.school"))
    }

    @Test("sub is team-scoped and Apple-shaped; the same for every client of a team")
    func subject() async throws {
        let provider = try Fixtures.provider()
        let web = try claims(of: try provider.signIn("jane")["id_token"]!)["sub"]!.stringValue!
        let staging = try claims(of: try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["client_id": "com.example.web.staging"]))["id_token"]!)["sub"]!.stringValue!
        let other = try claims(of: try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["client_id": "org.other.web"]))["id_token"]!)["sub"]!.stringValue!
        #expect(web.wholeMatch(of: /000\d{3}\.[0-9a-f]{32}\.\d{4}/) != nil)
        #expect(web == staging)
        #expect(web != other)
    }

    @Test("boolean claim styles: boolean, string, mixed", arguments: ClaimOptions.BooleanStyle.allCases)
    func booleanStyles(_ style: ClaimOptions.BooleanStyle) async throws {
        let provider = try Fixtures.provider { $0.settings.claims.booleans = style }
        let token = try claims(of: try provider.signIn("john")["id_token"]!)
        switch style {
        case .boolean:
            #expect(token["email_verified"] == .bool(true) && token["is_private_email"] == .bool(true))
        case .string:
            #expect(token["email_verified"] == .string("true") && token["is_private_email"] == .string("true"))
        case .mixed:
            #expect(token["email_verified"] == .bool(true) && token["is_private_email"] == .string("true"))
        }
    }

    @Test("lifetime and emitted-time skew knobs")
    func timeKnobs() async throws {
        let provider = try Fixtures.provider {
            $0.settings.claims.idTokenLifetime = 600
            $0.settings.claims.emittedTimeSkew = 5
        }
        let token = try claims(of: try provider.signIn("jane")["id_token"]!)
        let now = Int64(Fixtures.start.timeIntervalSince1970)
        #expect(token["iat"] == .int(now + 5))
        #expect(token["exp"] == .int(now + 605))
        #expect(token["auth_time"] == .int(now + 5))
    }

    @Test("the refresh response can omit the id_token (Apple before Aug 2020)")
    func refreshWithoutIDToken() async throws {
        let provider = try Fixtures.provider { $0.settings.claims.refreshReturnsIDToken = false }
        let code = try provider.signIn("jane")["code"]!
        let refresh = try provider.exchange(code).get()["refresh_token"]!.stringValue!
        let body = try provider.tokenResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token", "refresh_token": refresh,
        ])).get()
        #expect(body["id_token"] == nil)
        #expect(body["access_token"] != nil)
    }

    @Test("tokens are signed by the scenario's signing key, which is not the first in the JWKS")
    func signingKey() async throws {
        let provider = try Fixtures.provider()
        let jws = try CompactJWS(compact: try provider.signIn("jane")["id_token"]!)
        #expect(jws.header["kid"] == .string("mRS2bT4nWz"))
        #expect(provider.keySet.keys.first?.kid != "mRS2bT4nWz")
        #expect(provider.keySet.key(withID: "mRS2bT4nWz")!.isValidSignature(jws.signature, for: jws.signingInput))
    }
}
