import Crypto
import Foundation
@testable import MockAppleID
import Testing

/// TN3107's answers and the observed ones the `errors` knobs play, in process (over a real socket:
/// Tests/Conformance/test_error_answers.py).
@Suite("error answers")
struct ErrorAnswersTests {
    static func refresh(_ provider: AppleIDProvider, _ token: String) -> AppleError? {
        provider.tokenResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: provider.clock.now), "grant_type": "refresh_token",
            "refresh_token": token,
        ])).failure
    }

    static func refreshToken(_ provider: AppleIDProvider) throws -> String {
        let code = try #require(try provider.signIn("jane")["code"])
        return try #require(try provider.exchange(code).get()["refresh_token"]?.stringValue)
    }

    @Test("a refresh token the persona ended: invalid_request (or the knob's invalid_grant); one revoked at /auth/revoke or by deleting the account: invalid_grant")
    func refreshAfterConsentRevoked() throws {
        for code in ErrorAnswers.refreshAfterConsentRevokedCodes {
            let provider = try Fixtures.provider { $0.settings.errors.refreshAfterConsentRevoked = code }
            let token = try Self.refreshToken(provider)
            try provider.revokeConsent(personaID: "jane", clientID: Fixtures.webClient)
            #expect(Self.refresh(provider, token)?.code == code)
            #expect(Self.refresh(provider, token)?.description == (code == .invalidGrant ? "The token has expired or has been revoked." : nil))
            // Another client using it: the token is not theirs, so it is unknown to them.
            let other = provider.tokenResult(Fixtures.form([
                "client_id": "com.example.web.staging", "client_secret": Fixtures.secret(for: "com.example.web.staging"),
                "grant_type": "refresh_token", "refresh_token": token,
            ])).failure
            #expect(other?.code == .invalidGrant)

            let deleted = try Self.refreshToken(provider)
            try provider.deleteAccount(personaID: "jane")
            #expect(Self.refresh(provider, deleted)?.code == .invalidGrant)
        }
    }

    @Test("the refresh tokens persons ended are remembered up to a bound; the longest-ended are forgotten first")
    func endedTokensBounded() throws {
        var state = try WorldState(scenario: Fixtures.scenario())
        let key = ConsentKey(personaID: "jane", groupID: "com.example.app")
        let capacity = WorldState.endedRefreshTokenCapacity
        for round in 0...capacity {
            // One refresh token held at a time (a limit of one revokes the one before).
            state.keepRefreshGrant(RefreshGrant(token: "r\(round)", clientID: Fixtures.webClient, consent: key, authTime: Fixtures.start), limit: 1)
            state.rememberRefreshTokensEndedByUser(of: key, at: Fixtures.start.addingTimeInterval(TimeInterval(round)))
        }
        #expect(state.refreshTokensEndedByUser.count == capacity * 9 / 10)
        #expect(state.refreshTokenEndedByUser("r\(capacity)", clientID: Fixtures.webClient) != nil)
        #expect(state.refreshTokenEndedByUser("r\(capacity / 10)", clientID: Fixtures.webClient) == nil)
        #expect(state.refreshTokenEndedByUser("r\(capacity)", clientID: "com.example.web.staging") == nil)
    }

    @Test("a token_type_hint naming the other kind of token: invalid_request, nothing revoked; with ignore, revoked")
    func hintMismatch() throws {
        for policy in ErrorAnswers.HintMismatch.allCases {
            let provider = try Fixtures.provider { $0.settings.errors.revokeHintMismatch = policy }
            let token = try Self.refreshToken(provider)
            let answer = provider.revokeResult(Fixtures.form([
                "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": token, "token_type_hint": "access_token",
            ]))
            switch policy {
            case .invalidRequest:
                #expect(answer.failure?.code == .invalidRequest)
                #expect(Self.refresh(provider, token) == nil)
            case .ignore:
                #expect(answer.failure == nil)
                #expect(Self.refresh(provider, token)?.code == .invalidGrant)
            }
        }
    }

    @Test("a client secret with a fraction in iat or exp: accepted as a number, or refused with the knob")
    func fractionalTimes() throws {
        let scenario = try Fixtures.scenario()
        let team = try #require(scenario.teams.first { $0.id == "MOCKTEAM01" })
        let client = try #require(Directory(teams: scenario.teams, groups: scenario.groups).client(Fixtures.webClient))
        let now = Fixtures.start.timeIntervalSince1970
        for (iat, exp) in [(now + 0.25, now + 3600), (now, now + 3600.5)] {
            let secret = try ClientSecret.sign(
                header: .object([("alg", .string("ES256")), ("kid", .string("MOCKKEY001"))]),
                claims: .object([("iss", .string("MOCKTEAM01")), ("iat", .double(iat)), ("exp", .double(exp)),
                                 ("aud", .string("https://appleid.apple.com")), ("sub", .string(Fixtures.webClient))]),
                with: P256.Signing.PrivateKey(pemRepresentation: Fixtures.file("Keys/AuthKey_MOCKKEY001.p8")))
            var settings = ProviderSettings()
            #expect(throws: Never.self) { try ClientSecretVerifier(settings: settings).verify(secret, client: client, team: team, now: Fixtures.start).get() }
            settings.errors.clientSecretFractionalTimes = .refuse
            let refused = ClientSecretVerifier(settings: settings).verify(secret, client: client, team: team, now: Fixtures.start)
            guard case let .failure(failure) = refused, case let .fractionalTime(claim, _) = failure.base else {
                Issue.record("accepted: \(refused)"); continue
            }
            #expect(claim == (iat == now ? "exp" : "iat"))
        }
    }

    @Test("a snapshot from before a section existed restores, the section empty")
    func snapshotWithoutNewerSections() throws {
        let provider = try Fixtures.provider()
        let token = try Self.refreshToken(provider)
        var snapshot = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(provider.snapshot())) as? [String: Any])
        var state = try #require(snapshot["state"] as? [String: Any])
        state.removeValue(forKey: "refreshTokensEndedByUser")
        state.removeValue(forKey: "teamTokens")
        snapshot["state"] = state
        let restored = try Fixtures.provider()
        restored.restore(try JSONDecoder().decode(WorldSnapshot.self, from: JSONSerialization.data(withJSONObject: snapshot)))
        #expect(Self.refresh(restored, token) == nil)
    }
}
