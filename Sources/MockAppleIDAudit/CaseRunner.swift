import Foundation
import MockAppleID
import NIOCore

/// Plays each case and judges what the relying party did against the learning step's yardstick.
struct CaseRunner: Sendable {
    let session: AuditSession
    let learned: Learned

    var apple: AppleSide { session.apple }
    var persona: String { session.configuration.persona }

    /// What playing a case produced.
    enum Outcome: Sendable {
        /// The case does not apply, and why.
        case skipped(String)
        /// Judged before the case's own observation could be made, or without one (what was seen says why).
        case judged(Verdict, String, evidence: [String] = [])
        case played(Played)
    }

    /// One case's observation and how to read it.
    struct Played: Sendable {
        let observation: AuditSession.Observation
        /// A code exchange after a broken front-channel token, when the relying party then refused, is a WARN
        /// (it should validate that token before using the code).
        var exchangeIsCaution = false
        /// What a refusal that still needed Apple's side to stop it (a second redemption of a code) is: a WARN.
        var cautionIfRefused: String?
        /// An email the signed-in page must not show, and the one it should show instead (without either
        /// on the page, the case cannot be told unless `pageShowsEmails`).
        var forbiddenEmail: String?
        var expectedEmail: String?
        /// What was seen when the page shows `forbiddenEmail` (by default: the user JSON's email was taken).
        var forbiddenSeen: String?
        var pageShowsEmails = false
        /// The `sub` (or email) the signed-in page shows when the relying party took the broken token's person,
        /// and the one it shows when it took the token endpoint's: a case judged by which one it took.
        var brokenTokensMark: String?
        var honestTokensMark: String?
        /// The page shows neither `sub` nor email, so which of two tokens naming different people was taken is untold.
        var whichTokenUntold = false
        /// A miss is a WARN whatever the case's rule says (how this relying party signs in makes it a should).
        var missIsWarning = false
        var evidence: [String] = []
    }

    /// Plays `auditCase` and judges it; queued faults are cleared after it, whatever it did. A case that
    /// cannot be played (the relying party stopped answering its start URL) stops the audit.
    func run(_ auditCase: AuditCase) async throws(AuditFailure) -> CaseResult {
        defer { apple.clearFaults() }
        do {
            let outcome = try await play(auditCase)
            var result = Judge(learned: learned).judge(auditCase, outcome)
            if case let .played(played) = outcome { result.screenshot = played.observation.screenshot }
            return result
        } catch {
            throw AuditFailure("\(auditCase.id) could not be played: \(error.description)")
        }
    }

    private func play(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        if auditCase.dependsOnFrontChannelUse, learned.frontChannel == .ignored, auditCase != .idTokenUnvalidated, auditCase != .idTokenNonceNotSent {
            return .skipped("the relying party never reads the front-channel id_token (id_token.unvalidated): its sign-in comes from the token "
                            + "endpoint's alone, so a front-channel token cannot change it")
        }
        switch auditCase {
        case .requestState, .requestStateFresh, .requestNonceFresh, .requestRedirectURI, .requestPKCE:
            return try await judgeRequest(auditCase)
        case .idTokenUnvalidated, .idTokenNonceNotSent: return judgeFrontChannelUse(auditCase)
        case .callbackStringBooleans: return try await playStringBooleans()
        case .tokenInvalidGrant: return try await playTokenFault(.tokenError(.invalidGrant))
        case .tokenServerError: return try await playTokenFault(.tokenServerError(status: 503))
        case .tokenSlow: return try await playTokenFault(.tokenDelay(seconds: 10), timeout: .seconds(60))
        case .tokenShape: return try await playTokenFault(.tokenResponseShape)
        case .callbackStateMissing, .callbackStateWrong, .callbackStateOtherSession, .callbackReplay, .callbackCancel,
             .callbackUserEmailMismatch, .callbackUserEmailOnly, .callbackUserOnReturn, .callbackNoEmail, .callbackRelayEmail, .cookiesSlowPerson,
             .callbackRelayNewDomain, .callbackResponseModeMismatch, .callbackEmailLookalike:
            return try await playCallback(auditCase)
        case .keysRotation, .keysUnreachable:
            return try await playKeys(auditCase)
        case .nativeSignature, .nativeAudience, .nativeExpired, .nativeNonce, .nativeOtherTeam, .nativeSameTeamOtherApp:
            return try await playNative(auditCase)
        case .notificationsForged, .notificationsAudience, .notificationsIssuer, .notificationsExpired, .notificationsReplay,
             .notificationsConsentRevoked, .notificationsAccountDelete, .notificationsEmailDisabled, .notificationsEmailEnabled,
             .notificationsUnknownType, .notificationsRetried:
            return try await playNotification(auditCase)
        case .idTokenSignature, .idTokenForeignKey, .idTokenAlgNone, .idTokenHS256PublicKey, .idTokenAlgNoneMixedCase, .idTokenAlgNoneSigned,
             .idTokenCarriesItsOwnKey, .idTokenCarriesItsCertificate, .idTokenHS256KeyForms, .idTokenKidTricks, .idTokenUnknownKid, .idTokenIssuer,
             .idTokenAudience, .idTokenAudienceArray, .idTokenExpired, .idTokenIssuedInFuture, .idTokenNonce, .idTokenNonceMissing, .idTokenCodeHash,
             .idTokenSubjectMismatch, .idTokenMissingSubject, .idTokenMissingIssuer, .idTokenMissingAudience, .idTokenMissingExpiry,
             .idTokenMissingIssuedAt, .idTokenSubjectArray, .idTokenSubjectDuplicate, .idTokenIssuedLongAgo, .idTokenExpiryFarFuture,
             .idTokenExpiryAsString, .idTokenUnknownCritical, .idTokenOtherAlgorithm:
            return try await playFrontChannel(auditCase)
        // Each breaks the token endpoint's identity token with the fault it names (tokenEndpointFault, never nil here).
        case .tokenIDTokenSignature, .tokenIDTokenForeignKey, .tokenIDTokenAlgNone, .tokenIDTokenHS256PublicKey, .tokenIDTokenUnknownKid,
             .tokenIDTokenIssuer, .tokenIDTokenAudience, .tokenIDTokenAudienceArray, .tokenIDTokenExpired, .tokenIDTokenIssuedInFuture,
             .tokenIDTokenNonce, .tokenIDTokenNonceMissing, .tokenIDTokenSubjectMismatch, .tokenIDTokenMissingSubject, .tokenIDTokenMissingIssuer,
             .tokenIDTokenMissingAudience, .tokenIDTokenMissingExpiry, .tokenIDTokenMissingIssuedAt, .tokenIDTokenSubjectArray,
             .tokenIDTokenIssuedLongAgo, .tokenIDTokenExpiryFarFuture, .tokenIDTokenExpiryAsString, .tokenIDTokenUnknownCritical,
             .tokenIDTokenOtherAlgorithm:
            return try await playTokenFault(.idToken(auditCase.tokenEndpointFault ?? .badSignature))
        }
    }

    /// A fresh browser at Apple's page, the person's consent forgotten so that this sign-in is a first one.
    func firstSignIn() async throws(AuditFailure) -> AuditSession.Attempt {
        let attempt = try await session.begin()
        apple.forget(persona: persona, clientID: attempt.clientID)
        return attempt
    }

    /// What the signed-in page shows of `persona` signed in with one of `emails` (or as one of `subjects`, where
    /// a broken token names someone else), as the learning step found; empty when its status alone tells.
    func needles(persona: String? = nil, emails: [String?], subjects: [String] = [], clientID: String) -> [String] {
        switch learned.shows {
        case .subject: return [apple.subject(persona: persona ?? self.persona, clientID: clientID)].compactMap { $0 } + subjects
        case .email: return emails.compactMap { $0 }
        case .nothing: return []
        }
    }

    /// What tells that a token without a `sub` signed someone in, which shows no `sub`: the signed-in page's status (no
    /// needle) where it refuses a browser with no session, else the person's email where the page shows it; nil when
    /// neither can.
    func needlesWithoutSubject() -> [String]? {
        if learned.shows == .nothing || !learned.anonymousPageAnswers2xx { return [] }
        if learned.showsEmail, let email = sharedEmail() { return [email] }
        return nil
    }

    /// Why a case whose token has no `sub` is skipped when ``needlesWithoutSubject()`` is nil.
    static let subjectlessSignInUntold = "the signed-in page answers 2xx to a browser with no session and shows the sub, not the email: a sign-in "
        + "without a sub cannot be told"

    /// The email Apple's side gives `persona` for `clientID` when they share it.
    func sharedEmail(of persona: String? = nil) -> String? { apple.provider.persona(persona ?? self.persona)?.email }

    /// The relying party's code exchange gets `fault` (an identity token broken one way, or the token
    /// endpoint failing); a relying party that never exchanges the code skips the case.
    private func playTokenFault(_ fault: Fault.Kind, timeout: TimeAmount = .seconds(15)) async throws(AuditFailure) -> Outcome {
        let needsNonce = fault == .idToken(.wrongNonce) || fault == .idToken(.noNonce)
        let needsFrontChannel = fault == .idToken(.otherSubject)
        guard learned.exchangesCode else { return .skipped("the relying party never exchanged the code at /auth/token") }
        // A person signed in from a token without a sub shows none.
        var subjectlessNeedles: [String]?
        if fault == .idToken(.noSubject) {
            guard let withoutSubject = needlesWithoutSubject() else { return .skipped(Self.subjectlessSignInUntold) }
            subjectlessNeedles = withoutSubject
        }
        var attempt = try await firstSignIn()
        if needsNonce, attempt.nonce == nil { return .skipped("the relying party sends no nonce, so the token endpoint's token carries none to check") }
        if needsFrontChannel, !attempt.sendsFrontChannelToken {
            return .skipped("the relying party asks for response_type=code: no front-channel token names the person otherwise")
        }
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        // Every exchange in the case gets the fault, so a relying party that retries meets it again.
        apple.queue(fault, clientID: attempt.clientID, count: nil)
        let subjects = fault == .idToken(.otherSubject)
            ? [apple.subject(persona: persona, clientID: attempt.clientID).map(IdentityTokenClaims.otherSubject(than:))].compactMap { $0 } : []
        let signedInNeedles = subjectlessNeedles ?? needles(emails: [sharedEmail()], subjects: subjects, clientID: attempt.clientID)
        var answersWithin: TimeInterval?
        if case let .tokenDelay(seconds) = fault { answersWithin = seconds }
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt, needles: signedInNeedles,
                                                timeout: timeout, answersWithin: answersWithin)
        return .played(Played(observation: observation))
    }
}

extension Array where Element == FormParameters.Pair {
    /// These fields with `name` set to `value` (nil: removed), in place.
    func replacing(_ name: String, with value: String?) -> [FormParameters.Pair] {
        guard let value else { return filter { $0.name != name } }
        guard contains(where: { $0.name == name }) else { return self + [.init(name, value)] }
        return map { $0.name == name ? .init(name, value) : $0 }
    }
}
