import Foundation
import MockAppleID

extension CaseRunner {
    /// The identity token delivered with the code, broken one way (or, for string booleans, unusual
    /// but valid), signed again as the case needs.
    func playFrontChannel(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        var attempt = try await firstSignIn()
        guard attempt.sendsFrontChannelToken else {
            return .skipped("the relying party asks for response_type=code: no identity token comes with the code")
        }
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        guard let token = delivery["id_token"], let claims = TokenForgery.claims(of: token) else {
            return .skipped("Apple's side sent no identity token with the code")
        }
        let forged: String
        do { forged = try forge(auditCase, claims, code: delivery["code"] ?? "", clientID: attempt.clientID) } catch {
            throw AuditFailure("could not forge the token: \(error)")
        }
        let fields = delivery.fields.pairs.replacing("id_token", with: forged)
        // A relying party that takes the broken token's person shows that person's sub.
        let subjects = auditCase == .idTokenSubjectMismatch ? [TokenForgery.claims(of: forged)?["sub"]?.stringValue].compactMap { $0 } : []
        let observation = await session.observe(fields, of: delivery, attempt: &attempt,
                                                needles: needles(emails: [sharedEmail()], subjects: subjects, clientID: attempt.clientID))
        // Finding that the two tokens name different people needs the code exchange, so it proves nothing there.
        let exchangeCounts = auditCase != .idTokenSubjectMismatch && auditCase != .callbackStringBooleans
        return .played(Played(observation: observation, exchangeMeansAccepted: exchangeCounts))
    }

    private func forge(_ auditCase: AuditCase, _ claims: JSONValue, code: String, clientID: String) throws -> String {
        let forgery = TokenForgery(appleKey: apple.provider.keyRing().active)
        let issuedAt = claims["iat"]?.int64Value ?? 0
        let expires = claims["exp"]?.int64Value ?? 0
        switch auditCase {
        case .idTokenSignature: return try forgery.badSignature(claims)
        case .idTokenForeignKey: return try forgery.foreign(claims)
        case .idTokenAlgNone: return forgery.algNone(claims)
        case .idTokenHS256PublicKey: return forgery.hs256WithPublicKey(claims)
        case .idTokenUnknownKid: return try forgery.unknownKid(claims)
        case .idTokenIssuer: return try forgery.signed(claims.setting("iss", .string("https://appleid.apple.com.audit.invalid")))
        case .idTokenAudience: return try forgery.signed(claims.setting("aud", .string(apple.otherClient(ofTeamOf: clientID))))
        case .idTokenAudienceArray:
            return try forgery.signed(claims.setting("aud", .array([.string(clientID), .string("com.example.untrusted-audience")])))
        case .idTokenExpired: return try forgery.signed(claims.expiredAnHourAgo)
        case .idTokenIssuedInFuture:
            return try forgery.signed(claims.setting("iat", .int(issuedAt + 3600)).setting("exp", .int(expires + 3600)))
        case .idTokenNonce: return try forgery.signed(claims.setting("nonce", .string("audit-not-your-nonce-" + AppleIdentifiers.jwtID())))
        case .idTokenNonceMissing: return try forgery.signed(claims.setting("nonce", nil))
        case .idTokenCodeHash: return try forgery.signed(claims.setting("c_hash", .string(TokenHash.of("not-the-code-" + code))))
        case .idTokenSubjectMismatch:
            return try forgery.signed(claims.setting("sub", .string(IdentityTokenClaims.otherSubject(than: claims["sub"]?.stringValue ?? ""))))
        case .callbackStringBooleans:
            var changed = claims
            for name in ["email_verified", "is_private_email"] {
                if let value = claims[name]?.boolValue { changed = changed.setting(name, .string(value ? "true" : "false")) }
            }
            return try forgery.signed(changed)
        default: return try forgery.signed(claims)
        }
    }
}
