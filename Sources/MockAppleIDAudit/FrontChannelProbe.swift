import Foundation
import MockAppleID

/// How the relying party uses the identity token that comes with the code (`response_type=code id_token`), found
/// once by the learning step: Apple's side delivers that token with a broken signature and naming another person,
/// the token endpoint answers honestly, and the signed-in page shows which of the two the relying party took.
enum FrontChannelUse: Sendable, Equatable {
    /// It asks for `response_type=code`: no token comes with the code.
    case notAsked
    /// It refused the broken token: it reads the token (each front-channel case is judged as it is played).
    case validated
    /// It signed in the token endpoint's person: it never validates the front-channel token it asks for, so the
    /// front-channel cases cannot harm it and are judged once, as `id_token.unvalidated`.
    case ignored
    /// It signed in the person the broken token named.
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
        let otherSubject = IdentityTokenClaims.otherSubject(than: subject)
        var forgedClaims = claims.setting("sub", .string(otherSubject))
        if claims["email"] != nil { forgedClaims = forgedClaims.setting("email", .string(Self.probeEmail)) }
        let forged: String
        do { forged = try TokenForgery(appleKey: apple.provider.keyRing().active).badSignature(forgedClaims) } catch {
            throw AuditFailure("could not forge the token: \(error)")
        }
        let (honestMark, forgedMark): (String?, String?) = switch shows {
        case .subject: (subject, otherSubject)
        case .email: (claims["email"]?.stringValue, claims["email"] == nil ? nil : Self.probeEmail)
        case .nothing: (nil, nil)
        }
        let observation = await observe(delivery.fields.pairs.replacing("id_token", with: forged), of: delivery, attempt: &attempt,
                                        needles: [honestMark, forgedMark].compactMap { $0 })
        var evidence = ["front-channel probe: an id_token with a broken signature naming sub \(otherSubject)"
                        + (claims["email"] == nil ? "" : " and email \(Self.probeEmail)") + ", the token endpoint's naming the person",
                        "probe's callback: \(observation.callback.summary); signed-in page \(observation.signedIn.status.map(String.init) ?? "no answer")"]
        if let excerpt = PageText.excerpt(observation.signedIn.body), observation.signedIn.signedIn { evidence.append("signed-in page: \(excerpt)") }
        let use: FrontChannelUse
        if observation.signedIn.signedIn {
            if let forgedMark, observation.signedIn.body.contains(forgedMark) {
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
