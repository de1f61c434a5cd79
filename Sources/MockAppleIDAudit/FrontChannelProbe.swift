import Foundation
import MockAppleID

/// How the relying party uses the identity token that comes with the code (`response_type=code id_token`), found
/// once by the learning step: Apple's side delivers that token with a broken signature and naming another person,
/// the token endpoint answers honestly, and the signed-in page shows which of the two the relying party took.
enum FrontChannelUse: Sendable, Equatable {
    /// It asks for `response_type=code`: no token comes with the code.
    case notAsked
    /// It refused the broken token: it reads the token, checking its signature or comparing its person with the
    /// token endpoint's (each front-channel case tells which, as it is played).
    case validated
    /// It signed in the token endpoint's person: it never validates the front-channel token it asks for, so the
    /// front-channel cases cannot harm it and are judged once, as `id_token.unvalidated`.
    case ignored
    /// It signed in the person the broken token named, or shows something of that token (its email beside the
    /// token endpoint's `sub`, say).
    case trusted
    /// What it did cannot be told, and why (each front-channel case is judged as it is played).
    case unknown(String)
}

extension AuditSession {
    /// The email the probe's broken token names, so that a page showing emails tells which token was taken.
    static let probeEmail = "audit.front-channel.probe@example.net"

    /// Delivers the front-channel probe (see ``FrontChannelUse``) in a fresh browser for a first sign-in, and
    /// says what the relying party did with it, with the evidence.
    func probeFrontChannel(shows: Learned.Shows, unfinished: (AuditBrowser.Navigation) -> String?)
        async throws(AuditFailure) -> (use: FrontChannelUse, evidence: [String]) {
        var attempt = try await begin()
        guard attempt.sendsFrontChannelToken else { return (.notAsked, []) }
        let persona = configuration.persona
        apple.forget(persona: persona, clientID: attempt.clientID)
        let delivery = try answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        guard let token = delivery["id_token"], let claims = TokenForgery.claims(of: token), let subject = claims["sub"]?.stringValue else {
            return (.unknown("Apple's side sent no identity token with the code"), [])
        }
        // Another person than the one `id_token.sub_mismatch` forges, so that no account the probe leaves matches that case.
        let otherSubject = IdentityTokenClaims.otherSubject(than: IdentityTokenClaims.otherSubject(than: subject))
        var forgedClaims = claims.setting("sub", .string(otherSubject))
        if claims["email"] != nil { forgedClaims = forgedClaims.setting("email", .string(Self.probeEmail)) }
        let forged: String
        do { forged = try TokenForgery(appleKey: apple.provider.keyRing().active).badSignature(forgedClaims) } catch {
            throw AuditFailure("could not forge the token: \(error)")
        }
        let honestMark: String? = switch shows {
        case .subject: subject
        case .email: claims["email"]?.stringValue
        case .nothing: nil
        }
        // Whatever the page shows of the broken token (its sub, or its email beside the honest sub) came from it.
        let forgedMarks = [otherSubject, claims["email"] == nil ? nil : Self.probeEmail].compactMap { $0 }
        let observation = await observe(delivery.fields.pairs.replacing("id_token", with: forged), of: delivery, attempt: &attempt,
                                        needles: honestMark == nil ? [] : [honestMark].compactMap { $0 } + forgedMarks)
        var evidence = ["front-channel probe: an id_token with a broken signature naming sub \(otherSubject)"
                        + (claims["email"] == nil ? "" : " and email \(Self.probeEmail)") + ", the token endpoint's naming the person",
                        "probe's callback: \(observation.callback.summary); signed-in page \(observation.signedIn.status.map(String.init) ?? "no answer")"]
        if let excerpt = PageText.excerpt(observation.signedIn.body), observation.signedIn.signedIn { evidence.append("signed-in page: \(excerpt)") }
        let use: FrontChannelUse
        if observation.signedIn.signedIn {
            if forgedMarks.contains(where: observation.signedIn.body.contains) {
                use = .trusted
            } else if honestMark != nil {
                use = .ignored
            } else {
                use = .unknown("it signed the person in, but its signed-in page shows neither sub nor email, so which token it took cannot be told")
            }
        } else if let stop = unfinished(observation.callback) {
            use = .unknown("it " + stop)
        } else {
            use = .validated
        }
        return (use, evidence)
    }
}
