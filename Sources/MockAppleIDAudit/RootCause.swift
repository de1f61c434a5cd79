/// The check a relying party makes, or misses, that a case tests: the cases one missing check fails are one finding.
public enum RootCause: String, Sendable, Codable, CaseIterable {
    case signature, algorithm, issuer, audience, expiry
    case issuedAt = "issued_at"
    case subject
    case nonce
    case codeHash = "code_hash"
    case samePerson = "same_person"
    case frontChannel = "front_channel"
    case state
    case codeReplay = "code_replay"
    case errorHandling = "error_handling"
    case userJSON = "user_json"
    case claims, cookies, notifications
    case keyRotation = "key_rotation"
    case criticalHeader = "critical_header"
    case responseMode = "response_mode"
    case request
    case notificationTypes = "notification_types"
    case tokenResponse = "token_response"
    case emailMatching = "email_matching"

    /// What a miss lets happen, in one line: for a must (a FAIL) and for a should (a WARN).
    func impact(_ severity: Severity) -> String {
        switch (self, severity) {
        case (.signature, .must): return "a token nobody signed, or one signed by another key, signs someone in"
        case (.signature, .should): return "the token endpoint's token is trusted without its signature (TLS stands in for it; no token from elsewhere was trusted)"
        case (.algorithm, .must): return "a token with alg none, or keyed with Apple's public key as an HMAC secret, signs someone in"
        case (.algorithm, .should): return "a token under another algorithm than RS256 is trusted (the token endpoint's, where TLS stands in, or one "
            + "Apple's own key signed), or refused only after its code was used"
        case (.issuer, _): return "a token another issuer made, or one that names no issuer, is taken as Apple's"
        case (.audience, _): return "a token Apple made for another app, for another audience too, or for no audience, signs someone in to this one"
        case (.expiry, .must): return "an expired token, or one that never expires (no exp), replayed later, signs someone in"
        case (.expiry, .should): return "an expired token is refused only after its code was used, or a token whose exp no parser holds (1e20) signs in, "
            + "or is answered with a 5xx"
        case (.issuedAt, _): return "a token dated in the future, issued a week ago, or with no issue time, is accepted"
        case (.subject, .must): return "a token that names no one (no sub), or more than one person (sub as an array), signs someone in"
        case (.subject, .should): return "a token that names no one, or more than one person (sub twice), signs in, or is refused only after its "
            + "code was used"
        case (.nonce, .must): return "a token captured from another sign-in can be replayed into this one"
        case (.nonce, .should): return "nothing binds the front-channel token to the sign-in, though nothing reads that token yet"
        case (.codeHash, _): return "a token from another sign-in can be paired with this sign-in's code"
        case (.samePerson, .must): return "the front channel's person is signed in though the token endpoint names another"
        case (.samePerson, .should): return "two tokens naming different people go unnoticed (the token endpoint's person is signed in)"
        case (.frontChannel, .must): return "a forged front-channel token signs in the person it names"
        case (.frontChannel, .should): return "the id_token that comes with the code is never validated (no token that was not verified was trusted)"
        case (.state, _): return "another site can finish a sign-in in the person's browser (login CSRF)"
        case (.codeReplay, .must): return "a replayed callback signs someone in again"
        case (.codeReplay, .should): return "a replayed callback redeems its code again, or reuses a session's id; only Apple's invalid_grant stops a replay"
        case (.errorHandling, .must): return "a cancelled or failed sign-in signs someone in"
        case (.errorHandling, .should): return "a cancel or a failing token endpoint shows the person a server error, or no answer in time"
        case (.userJSON, _): return "an email the browser can change (the user JSON's) becomes the account's"
        case (.claims, _): return "people with no email, a relay address, or Apple's string booleans cannot sign in"
        case (.cookies, _): return "people who take their time on Apple's page cannot sign in: the state cookie is withheld from Apple's form_post"
        case (.notifications, .must): return "a forged, stale or replayed notification ends or changes someone's session"
        case (.notifications, .should): return "Apple's revocations and deletions leave sessions open, or are answered as accepted when they were not"
        case (.keyRotation, _): return "sign-in breaks when Apple rotates its signing key"
        case (.criticalHeader, _): return "a token whose header marks an extension critical is accepted by a relying party that does not know it"
        case (.responseMode, _): return "Apple's code is taken from a URL, where logs and Referer headers keep it"
        case (.request, .must): return "Apple's answer (the code, the person's token) crosses the network unencrypted, to an http return URL"
        case (.request, .should): return "a code stolen on its way can be redeemed without the browser's PKCE verifier"
        case (.emailMatching, _): return "a person whose email only looks like another's enters that other person's account"
        case (.tokenResponse, _): return "sign-in breaks when Apple's token response has token_type in lower case or no expires_in"
        case (.notificationTypes, .must): return "a notification that revokes nothing (an email change, a type Apple adds) ends the person's session"
        case (.notificationTypes, .should): return "a notification that revokes nothing is answered as refused, so Apple sends it again"
        }
    }
}

extension AuditCase {
    /// The check this case tests.
    public var rootCause: RootCause {
        switch self {
        case .idTokenSignature, .idTokenForeignKey, .idTokenCarriesItsOwnKey, .idTokenCarriesItsCertificate, .idTokenKidTricks, .idTokenUnknownKid, .tokenIDTokenSignature, .tokenIDTokenForeignKey, .tokenIDTokenUnknownKid,
             .nativeSignature, .keysUnreachable:
            return .signature
        case .idTokenAlgNone, .idTokenAlgNoneMixedCase, .idTokenAlgNoneSigned, .idTokenHS256PublicKey, .tokenIDTokenAlgNone, .tokenIDTokenHS256PublicKey,
             .idTokenOtherAlgorithm, .tokenIDTokenOtherAlgorithm, .idTokenHS256KeyForms:
            return .algorithm
        case .idTokenIssuer, .idTokenMissingIssuer, .tokenIDTokenIssuer, .tokenIDTokenMissingIssuer: return .issuer
        case .idTokenAudience, .idTokenAudienceArray, .idTokenMissingAudience, .tokenIDTokenAudience, .tokenIDTokenMissingAudience, .tokenIDTokenAudienceArray, .nativeAudience, .nativeOtherTeam,
             .nativeSameTeamOtherApp:
            return .audience
        case .idTokenExpired, .idTokenMissingExpiry, .tokenIDTokenExpired, .tokenIDTokenMissingExpiry, .nativeExpired, .idTokenExpiryFarFuture,
             .tokenIDTokenExpiryFarFuture, .idTokenExpiryAsString, .tokenIDTokenExpiryAsString:
            return .expiry
        case .idTokenIssuedInFuture, .idTokenMissingIssuedAt, .tokenIDTokenIssuedInFuture, .tokenIDTokenMissingIssuedAt,
             .idTokenIssuedLongAgo, .tokenIDTokenIssuedLongAgo:
            return .issuedAt
        case .idTokenMissingSubject, .idTokenSubjectArray, .idTokenSubjectDuplicate, .tokenIDTokenMissingSubject, .tokenIDTokenSubjectArray: return .subject
        case .idTokenNonceNotSent, .idTokenNonce, .idTokenNonceMissing, .tokenIDTokenNonce, .tokenIDTokenNonceMissing, .nativeNonce, .requestNonceFresh: return .nonce
        case .idTokenCodeHash: return .codeHash
        case .idTokenSubjectMismatch, .tokenIDTokenSubjectMismatch: return .samePerson
        case .idTokenUnvalidated: return .frontChannel
        case .callbackStateMissing, .callbackStateWrong, .callbackStateOtherSession, .requestState, .requestStateFresh: return .state
        case .callbackResponseModeMismatch: return .responseMode
        case .requestRedirectURI, .requestPKCE: return .request
        case .idTokenUnknownCritical, .tokenIDTokenUnknownCritical: return .criticalHeader
        case .notificationsEmailDisabled, .notificationsEmailEnabled, .notificationsUnknownType: return .notificationTypes
        case .tokenShape: return .tokenResponse
        case .callbackEmailLookalike: return .emailMatching
        case .callbackReplay: return .codeReplay
        case .callbackCancel, .tokenInvalidGrant, .tokenServerError, .tokenSlow: return .errorHandling
        case .callbackUserEmailMismatch, .callbackUserEmailOnly: return .userJSON
        case .callbackUserOnReturn, .callbackNoEmail, .callbackRelayEmail, .callbackStringBooleans, .callbackRelayNewDomain: return .claims
        case .cookiesSlowPerson: return .cookies
        case .notificationsForged, .notificationsAudience, .notificationsIssuer, .notificationsExpired, .notificationsReplay,
             .notificationsConsentRevoked, .notificationsAccountDelete, .notificationsRetried:
            return .notifications
        case .keysRotation: return .keyRotation
        }
    }
}

/// The cases one missing check failed, as one finding: the check, how much it weighs, and what it lets happen.
public struct Finding: Sendable, Codable, Equatable {
    public let rootCause: RootCause
    /// The worst verdict among its cases (FAIL, INCONCLUSIVE or WARN).
    public let verdict: Verdict
    public let severity: Severity
    /// What the miss lets happen, in one line.
    public let impact: String
    /// The ids of its cases, in the audit's order.
    public let cases: [String]

    /// The findings of `results`: their FAIL, INCONCLUSIVE and WARN cases grouped by root cause, worst first.
    static func of(_ results: [CaseResult]) -> [Finding] {
        let missed = results.filter { AuditGate.rank($0.verdict) > 0 }
        let groups = Dictionary(grouping: missed) { AuditCase(rawValue: $0.id)?.rootCause }
        let findings: [Finding] = RootCause.allCases.compactMap { cause in
            guard let results = groups[cause], let worst = results.map(\.verdict).max(by: { AuditGate.rank($0) < AuditGate.rank($1) }) else { return nil }
            let severity: Severity = worst == .warn ? .should : .must
            let impact = worst == .inconclusive ? "the audit cannot tell whether " + cause.impact(.must) : cause.impact(severity)
            return Finding(rootCause: cause, verdict: worst, severity: severity, impact: impact, cases: results.map(\.id))
        }
        return findings.sorted { AuditGate.rank($0.verdict) > AuditGate.rank($1.verdict) }
    }
}
