import Foundation
import MockAppleID
import Testing

/// The grant state machine under a manual clock: codes, refresh, revoke, consent.
@Suite("grants")
struct GrantTests {
    @Test("a code is exchanged once for access, refresh and id tokens")
    func exchange() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        #expect(code.wholeMatch(of: /c[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
        let body = try provider.exchange(code).get()
        #expect(body["token_type"] == .string("Bearer"))
        #expect(body["expires_in"] == .int(3600))
        #expect(body["access_token"]?.stringValue?.wholeMatch(of: /a[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
        #expect(body["refresh_token"]?.stringValue?.wholeMatch(of: /r[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
        #expect(body["id_token"] != nil)
        guard case let .object(members) = body else { Issue.record("the token answer is not a JSON object"); return }
        #expect(members.map(\.0) == ["access_token", "token_type", "expires_in", "refresh_token", "id_token"])
    }

    @Test("a used code: invalid_grant 'The code has already been used.'; the first tokens stay valid")
    func reusedCode() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        let first = try provider.exchange(code).get()
        let second = provider.exchange(code).failure
        #expect(second?.code == .invalidGrant)
        #expect(second?.description == "The code has already been used.")
        let refresh = provider.tokenResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token",
            "refresh_token": first["refresh_token"]!.stringValue!,
        ]))
        #expect(refresh.failure == nil)
    }

    @Test("a persona and client keep refreshTokensPerClient refresh tokens; one more revokes the oldest")
    func refreshTokenCap() async throws {
        let provider = try Fixtures.provider { $0.settings.refreshTokensPerClient = 2 }
        var tokens: [String] = []
        for _ in 0..<3 {
            let code = try provider.signIn("jane")["code"]!
            tokens.append(try #require(try provider.exchange(code).get()["refresh_token"]?.stringValue))
        }
        func refresh(_ token: String) -> AppleError? {
            provider.tokenResult(Fixtures.form([
                "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token", "refresh_token": token,
            ])).failure
        }
        #expect(refresh(tokens[0])?.code == .invalidGrant)
        #expect(refresh(tokens[1]) == nil)
        #expect(refresh(tokens[2]) == nil)
    }

    @Test("codes live 300 s on the provider's clock")
    func expiry() async throws {
        let provider = try Fixtures.provider()
        let fresh = try provider.signIn("jane")["code"]!
        try provider.clock.advance(by: 299)
        #expect(provider.exchange(fresh).failure == nil)
        let late = try provider.signIn("jane")["code"]!
        try provider.clock.advance(by: 300)
        let failure = provider.exchange(late).failure
        #expect(failure?.code == .invalidGrant)
        #expect(failure?.description == "The code has expired or has been revoked.")
    }

    @Test("an unknown code (or an id_token sent as code) is invalid_grant")
    func unknownCode() async throws {
        let provider = try Fixtures.provider()
        #expect(provider.exchange("c0.0.abcd.x").failure?.description == "The code has expired or has been revoked.")
    }

    @Test("codes and refresh tokens are matched byte for byte: U+212A KELVIN SIGN in place of K matches nothing")
    func byteExactMatching() async throws {
        let provider = try Fixtures.provider()
        let kelvin = "\u{212A}"
        #expect(kelvin == "K")  // Swift's String equality; Apple compares bytes
        // A quarter to a third of tokens hold a K in their base64url tail: draw until one does.
        var refreshToken: String?
        for _ in 0..<200 where refreshToken == nil {
            let token = try #require(try provider.exchange(provider.signIn("jane")["code"]!).get()["refresh_token"]?.stringValue)
            if token.contains("K" as Character) { refreshToken = token }
        }
        let refresh = try #require(refreshToken)
        var unredeemed: String?
        for _ in 0..<200 where unredeemed == nil {
            let code = try provider.signIn("jane")["code"]!
            if code.contains("K" as Character) { unredeemed = code }
        }
        let code = try #require(unredeemed)

        #expect(provider.exchange(code.replacingOccurrences(of: "K", with: kelvin)).failure?.code == .invalidGrant)
        func refreshed(_ token: String) -> AppleError? {
            provider.tokenResult(Fixtures.form([
                "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token", "refresh_token": token,
            ])).failure
        }
        #expect(refreshed(refresh.replacingOccurrences(of: "K", with: kelvin))?.code == .invalidGrant)
        _ = provider.revokeResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": refresh.replacingOccurrences(of: "K", with: kelvin),
        ]))
        #expect(refreshed(refresh) == nil)
        #expect(provider.exchange(code).failure == nil)
    }

    @Test("the code is bound to its client")
    func otherClient() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        let failure = provider.exchange(code, clientID: "com.example.web.staging").failure
        #expect(failure?.code == .invalidGrant)
    }

    @Test("the code is bound to its redirect_uri: mismatch is invalid_grant, missing is invalid_request")
    func redirectBinding() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        let mismatch = provider.exchange(code, redirectURI: "http://127.0.0.1:3000/auth/apple/callback").failure
        #expect(mismatch?.code == .invalidGrant)
        #expect(mismatch?.description == "redirect_uri mismatch. The code was not issued to http://127.0.0.1:3000/auth/apple/callback.")
        #expect(provider.exchange(code, redirectURI: nil).failure?.code == .invalidRequest)
        #expect(provider.exchange(code).failure == nil)
    }

    @Test("PKCE S256: the right verifier is required", arguments: [nil, "wrong-verifier-wrong-verifier-wrong-verifier-x"] as [String?])
    func pkceRefused(_ verifier: String?) async throws {
        let provider = try Fixtures.provider()
        let real = String(repeating: "v", count: 50)
        let parameters = Fixtures.authorizeParameters(["code_challenge": PKCEChallenge.s256(of: real), "code_challenge_method": "S256"])
        let code = try provider.signIn("jane", parameters: parameters)["code"]!
        #expect(provider.exchange(code, verifier: verifier).failure?.code == .invalidGrant)
        #expect(provider.exchange(code, verifier: real).failure == nil)
    }

    @Test("PKCE plain compares the verifier itself")
    func pkcePlain() async throws {
        let provider = try Fixtures.provider()
        let verifier = String(repeating: "p", count: 43)
        let code = try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["code_challenge": verifier]))["code"]!
        #expect(provider.exchange(code, verifier: verifier).failure == nil)
    }

    @Test("PKCE plain compares the verifier byte for byte: U+212A KELVIN SIGN in place of K does not answer the challenge")
    func pkcePlainByteExact() async throws {
        let provider = try Fixtures.provider()
        let challenge = String(repeating: "K", count: 43)
        let code = try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["code_challenge": challenge]))["code"]!
        #expect(provider.exchange(code, verifier: String(repeating: "\u{212A}", count: 43)).failure?.code == .invalidGrant)
        #expect(provider.exchange(code, verifier: challenge).failure == nil)
    }

    @Test("a code_verifier without a code_challenge fails")
    func verifierWithoutChallenge() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        #expect(provider.exchange(code, verifier: String(repeating: "v", count: 50)).failure?.code == .invalidGrant)
    }

    @Test("refresh returns an id_token and no new refresh_token; it fails after revoke")
    func refreshAndRevoke() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        let refreshToken = try provider.exchange(code).get()["refresh_token"]!.stringValue!
        let refreshForm = Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token", "refresh_token": refreshToken,
        ])
        let refreshed = try provider.tokenResult(refreshForm).get()
        guard case let .object(members) = refreshed else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["access_token", "token_type", "expires_in", "id_token"])
        let revoke = Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": refreshToken,
                                    "token_type_hint": "refresh_token"])
        #expect(provider.revokeResult(revoke).failure == nil)
        #expect(provider.tokenResult(refreshForm).failure?.code == .invalidGrant)
        #expect(provider.consent(personaID: "jane", clientID: Fixtures.webClient) == nil)
    }

    @Test("revoking an access token revokes the grant; unknown tokens and other clients' tokens still answer 200")
    func revokeOutcomes() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        let access = try provider.exchange(code).get()["access_token"]!.stringValue!
        let staging = "com.example.web.staging"
        let otherClient = Fixtures.form(["client_id": staging, "client_secret": Fixtures.secret(for: staging), "token": access])
        #expect(try provider.revokeResult(otherClient).get().contains("nothing revoked"))
        #expect(provider.consent(personaID: "jane", clientID: Fixtures.webClient) != nil)
        let own = Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": access,
                                 "token_type_hint": "access_token"])
        #expect(try provider.revokeResult(own).get().contains("consent of persona jane to app group com.example.app revoked"))
        #expect(try provider.revokeResult(own).get().contains("unknown"))
    }

    @Test("revoke checks the client secret and the hint")
    func revokeErrors() async throws {
        let provider = try Fixtures.provider()
        #expect(provider.revokeResult(Fixtures.form([:])).failure?.code == .invalidClient)
        #expect(provider.revokeResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": "x", "token": "t"])).failure?.code == .invalidClient)
        #expect(provider.revokeResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret()])).failure?.code == .invalidRequest)
        #expect(provider.revokeResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": "t",
                                                     "token_type_hint": "id_token"])).failure?.code == .invalidRequest)
    }

    @Test("token endpoint: grant_type missing, unknown, and fields given twice")
    func tokenRequestErrors() async throws {
        let provider = try Fixtures.provider()
        let base = Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret()])
        #expect(provider.tokenResult(base).failure?.code == .invalidRequest)
        #expect(provider.tokenResult(FormParameters(base.pairs + [.init("grant_type", "password")])).failure?.code == .unsupportedGrantType)
        #expect(provider.tokenResult(FormParameters(base.pairs + [.init("grant_type", "authorization_code")])).failure?.code == .invalidRequest)
        let twice = FormParameters(base.pairs + [.init("grant_type", "refresh_token"), .init("grant_type", "refresh_token")])
        #expect(provider.tokenResult(twice).failure?.code == .invalidRequest)
        #expect(provider.tokenResult(Fixtures.form(["client_id": "nope", "client_secret": Fixtures.secret()])).failure?.code == .invalidClient)
    }

    @Test("user is sent on first consent only, and again after revocation")
    func userOnFirstConsent() async throws {
        let provider = try Fixtures.provider()
        let first = try provider.signIn("jane", name: PersonName(firstName: "Janie", lastName: "A."))
        #expect(first["user"] == #"{"name":{"firstName":"Janie","lastName":"A."},"email":"jane.appleseed@example.com"}"#)
        let second = try provider.signIn("jane")
        #expect(second["user"] == nil)
        #expect(second["state"] == "st4te")
        let refresh = try provider.exchange(second["code"]!).get()["refresh_token"]!.stringValue!
        _ = provider.revokeResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": refresh]))
        #expect(try provider.signIn("jane")["user"] != nil)
    }

    @Test("consent is per app group: a grouped client sees a returning user")
    func consentPerGroup() async throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("jane")
        let staging = Fixtures.authorizeParameters(["client_id": "com.example.web.staging"])
        #expect(try provider.signIn("jane", parameters: staging)["user"] == nil)
        let otherTeam = Fixtures.authorizeParameters(["client_id": "org.other.web"])
        #expect(try provider.signIn("jane", parameters: otherTeam)["user"] != nil)
    }

    @Test("cancel delivers user_cancelled_authorize with state and no code")
    func cancel() async throws {
        let provider = try Fixtures.provider()
        let delivery = try provider.completeResult(Fixtures.authorizeParameters(), decision: .cancel).get()
        #expect(delivery.fields.pairs == [.init("state", "st4te"), .init("error", "user_cancelled_authorize")])
    }

    @Test("auto-approve answers authorize at once; without it a consent prompt comes back")
    func autoApprove() async throws {
        let provider = try Fixtures.provider()
        guard case let .consentRequired(prompt) = try provider.authorize(Fixtures.authorizeParameters()) else {
            Issue.record("expected a consent prompt"); return
        }
        #expect(prompt.choices.map(\.persona.id) == ["jane", "john", "noemail", "pat"])
        try provider.setAutoApprove(AutoApprove(persona: "john", emailChoice: .share))
        guard case let .delivered(delivery) = try provider.authorize(Fixtures.authorizeParameters()) else {
            Issue.record("expected a delivery"); return
        }
        #expect(delivery["user"]?.contains("john.hidden@example.com") == true)
        #expect(throws: PersonaError.notFound("ghost")) { try provider.setAutoApprove(AutoApprove(persona: "ghost")) }
    }

    @Test("query and fragment deliveries append to the redirect URI")
    func deliveryLocations() {
        let fields = FormParameters([.init("code", "c 1"), .init("state", "a&b")])
        #expect(AuthorizationDelivery(redirectURI: "https://a.test/cb?x=1", mode: .query, fields: fields).redirectLocation
            == "https://a.test/cb?x=1&code=c%201&state=a%26b")
        #expect(AuthorizationDelivery(redirectURI: "https://a.test/cb", mode: .fragment, fields: fields).redirectLocation
            == "https://a.test/cb#code=c%201&state=a%26b")
        #expect(AuthorizationDelivery(redirectURI: "https://a.test/cb", mode: .formPost, fields: fields).redirectLocation == nil)
    }

    @Test("expired codes are dropped at the first sign-in a minute or more of clock time after the last purge; live ones stay")
    func purgeOnTheClock() async throws {
        let provider = try Fixtures.provider()
        let codeOnly = Fixtures.authorizeParameters(["response_type": "code"])
        _ = try provider.signIn("jane", parameters: codeOnly)
        try provider.clock.advance(by: 240)
        let young = try provider.signIn("jane", parameters: codeOnly)["code"]!
        #expect(provider.heldGrantCounts().codes == 2)
        try provider.clock.advance(by: 60)  // the first code is now expired, the second is not
        let live = try provider.signIn("jane", parameters: codeOnly)["code"]!
        #expect(provider.heldGrantCounts().codes == 2)
        #expect(provider.exchange(young).failure == nil)
        #expect(provider.exchange(live).failure == nil)
    }

    @Test("a sign-in less than a minute of clock time after the last purge does not purge again")
    func purgeAtMostEveryMinute() async throws {
        let provider = try Fixtures.provider()
        let codeOnly = Fixtures.authorizeParameters(["response_type": "code"])
        let first = try provider.signIn("jane", parameters: codeOnly)["code"]!
        try provider.clock.advance(by: 270)  // purges; the first code has 30 s left
        _ = try provider.signIn("jane", parameters: codeOnly)
        try provider.clock.advance(by: 40)  // the first code expired, 40 s after that purge
        _ = try provider.signIn("jane", parameters: codeOnly)
        #expect(provider.heldGrantCounts().codes == 3)
        let expired = provider.exchange(first).failure
        #expect(expired?.code == .invalidGrant)
        #expect(expired?.reason.contains("expired 10 s ago") == true)
        try provider.clock.advance(by: 20)
        _ = try provider.signIn("jane", parameters: codeOnly)
        #expect(provider.heldGrantCounts().codes == 3)
    }

    @Test("after the clock is moved back before the last purge, purges come a minute apart from there")
    func purgeAfterTheClockMovesBack() async throws {
        let provider = try Fixtures.provider()
        let codeOnly = Fixtures.authorizeParameters(["response_type": "code"])
        let late = try provider.signIn("jane", parameters: codeOnly)["code"]!
        try provider.clock.advance(by: -3600)
        _ = try provider.signIn("jane", parameters: codeOnly)
        try provider.clock.advance(by: 301)  // the code issued after moving back expired; the first did not
        _ = try provider.signIn("jane", parameters: codeOnly)
        #expect(provider.heldGrantCounts().codes == 2)
        #expect(provider.exchange(late).failure == nil)
    }

    @Test("expired codes are dropped sooner once many are held")
    func purgeWhenMany() async throws {
        let provider = try Fixtures.provider()
        let codeOnly = Fixtures.authorizeParameters(["response_type": "code"])
        for _ in 0..<5_000 { _ = try provider.signIn("jane", parameters: codeOnly) }
        try provider.clock.advance(by: 250)  // a purge is due, but nothing has expired: 10,000 held will purge again
        for _ in 0..<5_000 { _ = try provider.signIn("jane", parameters: codeOnly) }
        #expect(provider.heldGrantCounts().codes == 10_000)
        try provider.clock.advance(by: 51)  // the first 5,000 expired, less than a minute after that purge
        let live = try provider.signIn("jane")["code"]!
        #expect(provider.heldGrantCounts().codes == 5_001)
        #expect(provider.exchange(live).failure == nil)
    }

    @Test("expired access tokens are dropped too when only refreshes come in")
    func purgeOnRefresh() async throws {
        let provider = try Fixtures.provider { $0.settings.claims.refreshReturnsIDToken = false }
        let code = try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["response_type": "code"]))["code"]!
        let refreshToken = try provider.exchange(code).get()["refresh_token"]!.stringValue!
        let form = Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token",
                                  "refresh_token": refreshToken])
        for _ in 0..<9_998 { _ = try provider.tokenResult(form).get() }
        #expect(provider.heldGrantCounts() == (codes: 1, accessTokens: 9_999))
        try provider.clock.advance(by: 3600)
        _ = try provider.tokenResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: provider.clock.now),
                                                    "grant_type": "refresh_token", "refresh_token": refreshToken])).get()
        #expect(provider.heldGrantCounts() == (codes: 0, accessTokens: 1))
    }

    @Test("reset forgets consents, codes and tokens, and restores the clock")
    func reset() async throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        try provider.createPersona(Persona(id: "temp", firstName: "T", lastName: "P", email: nil))
        provider.reset()
        #expect(provider.exchange(code).failure?.code == .invalidGrant)
        #expect(provider.persona("temp") == nil)
        #expect(provider.consent(personaID: "jane", clientID: Fixtures.webClient) == nil)
    }
}
