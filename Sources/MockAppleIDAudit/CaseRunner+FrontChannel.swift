import Foundation
import MockAppleID

extension CaseRunner {
    /// The identity token delivered with the code, broken one way, signed again as the case needs. A case whose token
    /// comes in several forms plays each in a sign-in of its own, until one signs someone in.
    func playFrontChannel(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        // A person signed in from a token without a sub shows none.
        var subjectlessNeedles: [String]?
        if auditCase == .idTokenMissingSubject {
            guard let withoutSubject = needlesWithoutSubject() else { return .skipped(Self.subjectlessSignInUntold) }
            subjectlessNeedles = withoutSubject
        }
        // Each form is judged as the case is; the worst of them stands, and a form that fails ends the case.
        var judged: [(played: Played, verdict: Verdict, label: String)] = []
        var form = 0
        var forms = 1
        while form < forms {
            let (outcome, count, label) = try await playFrontChannel(auditCase, form: form, subjectlessNeedles: subjectlessNeedles)
            guard case let .played(played) = outcome else { return judged.isEmpty ? outcome : .played(Self.worst(judged, of: forms)) }
            let verdict = Judge(learned: learned).judge(auditCase, outcome).verdict
            judged.append((played, verdict, label ?? ""))
            forms = count
            if verdict == .fail { break }
            form += 1
        }
        return .played(Self.worst(judged, of: forms))
    }

    /// The observation of the form that did worst, and what became of each form when the case has several.
    private static func worst(_ judged: [(played: Played, verdict: Verdict, label: String)], of forms: Int) -> Played {
        var played = judged.max { AuditGate.rank($0.verdict) < AuditGate.rank($1.verdict) }?.played ?? judged[0].played
        if forms > 1 {
            played.evidence.insert("\(judged.count) of \(forms) forms played: " + judged.map { "\($0.label): \($0.verdict.rawValue)" }.joined(separator: "; "), at: 0)
        }
        return played
    }

    /// One sign-in of a front-channel case with its token's `form`; how many forms the case has, and this one's label.
    private func playFrontChannel(_ auditCase: AuditCase, form: Int, subjectlessNeedles: [String]?) async throws(AuditFailure)
        -> (outcome: Outcome, forms: Int, label: String?) {
        var attempt = try await firstSignIn()
        guard attempt.sendsFrontChannelToken else {
            return (.skipped("the relying party asks for response_type=code: no identity token comes with the code"), 1, nil)
        }
        if auditCase == .idTokenNonce || auditCase == .idTokenNonceMissing, attempt.nonce == nil {
            return (.skipped("the relying party sends no nonce, so there is none to check (id_token.nonce_not_sent)"), 1, nil)
        }
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        guard let token = delivery["id_token"], let claims = TokenForgery.claims(of: token) else {
            return (.skipped("Apple's side sent no identity token with the code"), 1, nil)
        }
        let forms: [KeyConfusion.Form]
        do { forms = try forge(auditCase, claims, code: delivery["code"] ?? "", clientID: attempt.clientID) } catch {
            throw AuditFailure("could not forge the token: \(error)")
        }
        let forged = forms[min(form, forms.count - 1)]
        let fields = delivery.fields.pairs.replacing("id_token", with: forged.token)
        // A relying party that takes the broken token's person shows that person's sub (or email).
        let otherPerson: JSONValue? = switch auditCase {
        case .idTokenSubjectMismatch: TokenForgery.claims(of: forged.token)
        case .idTokenSubjectDuplicate: claims.setting("sub", .string(IdentityTokenClaims.otherSubject(than: claims["sub"]?.stringValue ?? "")))
        default: nil
        }
        let signedInNeedles = subjectlessNeedles ?? needles(emails: [sharedEmail(), otherPerson?["email"]?.stringValue],
                                                            subjects: [otherPerson?["sub"]?.stringValue].compactMap { $0 }, clientID: attempt.clientID)
        let observation = await session.observe(fields, of: delivery, attempt: &attempt, needles: signedInNeedles)
        // Finding that the two tokens name different people needs the code exchange, so it proves nothing there; nor does a
        // token only Apple's key could sign.
        var played = Played(observation: observation, exchangeIsCaution: auditCase != .idTokenSubjectMismatch && !auditCase.onlyApplesKeyCouldSign)
        if auditCase == .idTokenSubjectDuplicate {
            // Both subs come with the same email: only a page that shows the sub tells which one was taken.
            if learned.shows == .subject { played.brokenTokensMark = otherPerson?["sub"]?.stringValue }
        } else if let otherPerson {
            switch learned.shows {
            case .subject: (played.brokenTokensMark, played.honestTokensMark) = (otherPerson["sub"]?.stringValue, claims["sub"]?.stringValue)
            case .email: (played.brokenTokensMark, played.honestTokensMark) = (otherPerson["email"]?.stringValue, claims["email"]?.stringValue)
            case .nothing: played.whichTokenUntold = true
            }
        }
        return (.played(played), forms.count, forms.count > 1 ? forged.label : nil)
    }

    /// Apple's string booleans (`email_verified` and `is_private_email` as `"true"`/`"false"`) in every identity
    /// token of the sign-in: the one that comes with the code, signed again, and the token endpoint's.
    func playStringBooleans() async throws(AuditFailure) -> Outcome {
        var attempt = try await firstSignIn()
        guard learned.exchangesCode || attempt.sendsFrontChannelToken else { return .skipped("the relying party reads no identity token") }
        guard attempt.asksForEmail else {
            return .skipped("the relying party asks for no email scope, so its tokens carry no email_verified or is_private_email")
        }
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        var fields = delivery.fields.pairs
        if let token = delivery["id_token"], let claims = TokenForgery.claims(of: token) {
            var changed = claims
            for name in ["email_verified", "is_private_email"] {
                if let value = claims[name]?.boolValue { changed = changed.setting(name, .string(value ? "true" : "false")) }
            }
            do { fields = fields.replacing("id_token", with: try TokenForgery(appleKey: apple.provider.keyRing().active).signed(changed)) } catch {
                throw AuditFailure("could not sign the token: \(error)")
            }
        }
        apple.queue(.idToken(.stringBooleans), clientID: attempt.clientID, count: nil)
        let observation = await session.observe(fields, of: delivery, attempt: &attempt, needles: needles(emails: [sharedEmail()], clientID: attempt.clientID))
        return .played(Played(observation: observation))
    }

    /// How the relying party uses the front-channel id_token (the learning step's probe), and whether it sends the
    /// nonce that token needs, judged once each rather than through every broken token.
    func judgeFrontChannelUse(_ auditCase: AuditCase) -> Outcome {
        let use = learned.frontChannel
        if use == .notAsked { return .skipped("the relying party asks for response_type=code: no identity token comes with the code") }
        if auditCase == .idTokenNonceNotSent {
            if learned.request.first("nonce") != nil { return .judged(.pass, "sends a nonce with response_type=code id_token") }
            switch use {
            case .ignored:
                return .judged(.warn, "asks for response_type=code id_token without a nonce; it never reads that id_token, so nothing depends on it yet")
            case let .unknown(reason):
                return .judged(.inconclusive, "asks for response_type=code id_token without a nonce, and whether it reads that id_token cannot be told: \(reason)")
            case .notAsked, .validated, .trusted:
                return .judged(.fail, "asks for response_type=code id_token without a nonce, and reads that id_token: a token captured elsewhere can be replayed")
            }
        }
        let evidence = learned.frontChannelEvidence
        switch use {
        case .notAsked, .validated:
            return .judged(.pass, "refused a front-channel id_token with a broken signature naming another person", evidence: evidence)
        case .ignored:
            return .judged(.warn, "signed the person in from the token endpoint's id_token and never validated the front-channel one it asks for "
                           + "(no token it did not verify was trusted; ask for response_type=code, or validate it)", evidence: evidence)
        case .trusted:
            return .judged(.fail, "took the person, or their email, from a front-channel id_token with a broken signature", evidence: evidence)
        case let .unknown(reason):
            return .judged(.inconclusive, reason, evidence: evidence)
        }
    }

    private func forge(_ auditCase: AuditCase, _ claims: JSONValue, code: String, clientID: String) throws -> [KeyConfusion.Form] {
        let confusion = KeyConfusion(appleKey: apple.provider.keyRing().active)
        switch auditCase {
        case .idTokenHS256KeyForms: return confusion.hs256KeyForms(claims)
        case .idTokenKidTricks: return try confusion.kidTricks(claims)
        default: return [KeyConfusion.Form(label: "", token: try forgeOne(auditCase, claims, code: code, clientID: clientID))]
        }
    }

    private func forgeOne(_ auditCase: AuditCase, _ claims: JSONValue, code: String, clientID: String) throws -> String {
        let forgery = TokenForgery(appleKey: apple.provider.keyRing().active)
        let issuedAt = claims["iat"]?.int64Value ?? 0
        let expires = claims["exp"]?.int64Value ?? 0
        switch auditCase {
        case .idTokenSignature: return try forgery.badSignature(claims)
        case .idTokenForeignKey: return try forgery.foreign(claims)
        case .idTokenAlgNone: return forgery.algNone(claims)
        case .idTokenAlgNoneMixedCase: return try forgery.algNoneMixedCase(claims)
        case .idTokenAlgNoneSigned: return try forgery.algNoneSigned(claims)
        case .idTokenCarriesItsOwnKey: return try forgery.carryingItsOwnKey(claims)
        case .idTokenCarriesItsCertificate: return try KeyConfusion(appleKey: forgery.appleKey).carryingItsCertificate(claims)
        case .idTokenSubjectDuplicate:
            guard case let .object(members) = claims else { return try forgery.signed(claims) }
            let other = IdentityTokenClaims.otherSubject(than: claims["sub"]?.stringValue ?? "")
            return try forgery.signed(.object(members + [("sub", .string(other))]))
        case .idTokenMissingSubject: return try forgery.signed(claims.setting("sub", nil))
        case .idTokenMissingIssuer: return try forgery.signed(claims.setting("iss", nil))
        case .idTokenMissingAudience: return try forgery.signed(claims.setting("aud", nil))
        case .idTokenMissingExpiry: return try forgery.signed(claims.setting("exp", nil))
        case .idTokenMissingIssuedAt: return try forgery.signed(claims.setting("iat", nil))
        case .idTokenSubjectArray:
            let subject = claims["sub"]?.stringValue ?? ""
            return try forgery.signed(claims.setting("sub", .array([.string(subject), .string(IdentityTokenClaims.otherSubject(than: subject))])))
        case .idTokenHS256PublicKey: return forgery.hs256WithPublicKey(claims)
        case .idTokenIssuedLongAgo, .idTokenExpiryFarFuture, .idTokenExpiryAsString:
            return try forgery.signed(auditCase.twinTokenEndpointFault.map { IdentityTokenClaims.reshaping(claims, as: $0) } ?? claims)
        case .idTokenUnknownCritical: return try ForgedJWS.withUnknownCriticalHeader(payload: claims, key: forgery.appleKey)
        case .idTokenOtherAlgorithm: return try ForgedJWS.underOtherAlgorithm(payload: claims, key: forgery.appleKey)
        case .idTokenUnknownKid: return try forgery.unknownKid(claims)
        case .idTokenIssuer: return try forgery.signed(claims.setting("iss", .string("https://appleid.apple.com.audit.invalid")))
        // A token Apple made for another app: Apple sends no `azp`.
        case .idTokenAudience: return try forgery.signed(claims.setting("aud", .string(apple.otherClient(ofTeamOf: clientID))))
        // A token for the client and another audience names the client as its authorized party, as OpenID Connect has one do.
        case .idTokenAudienceArray:
            return try forgery.signed(claims.setting("aud", .array([.string(clientID), .string("com.example.untrusted-audience")]))
                .setting("azp", .string(clientID)))
        case .idTokenExpired: return try forgery.signed(claims.expiredAnHourAgo)
        case .idTokenIssuedInFuture:
            return try forgery.signed(claims.setting("iat", .int(issuedAt + 3600)).setting("exp", .int(expires + 3600)))
        case .idTokenNonce: return try forgery.signed(claims.setting("nonce", .string("audit-not-your-nonce-" + AppleIdentifiers.jwtID())))
        case .idTokenNonceMissing: return try forgery.signed(claims.setting("nonce", nil))
        case .idTokenCodeHash: return try forgery.signed(claims.setting("c_hash", .string(TokenHash.of("not-the-code-" + code))))
        case .idTokenSubjectMismatch:
            let other = claims.setting("sub", .string(IdentityTokenClaims.otherSubject(than: claims["sub"]?.stringValue ?? "")))
            return try forgery.signed(claims["email"] == nil ? other : other.setting("email", .string(Self.otherPersonsEmail)))
        default: throw AuditFailure("\(auditCase.id) is not a case of the front-channel id_token")
        }
    }
}
