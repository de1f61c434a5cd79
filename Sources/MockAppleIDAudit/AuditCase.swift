import MockAppleID

/// One thing the audit makes Apple's side do wrong (or unusually), named by a stable id that the table,
/// the JSON, the JUnit report and `--cases` all use. The list of cases is this enum; everything else
/// (the docs' table, `audit --list-cases`) is derived from it.
///
/// Cases run in this order; the key cases come last, since the new signing keys they make stay.
public enum AuditCase: String, CaseIterable, Sendable, Codable {
    // The relying party's authorize request, judged from what it sends (a second sign-in begun for freshness).
    case requestState = "request.state"
    case requestStateFresh = "request.state_fresh"
    case requestNonceFresh = "request.nonce_fresh"
    case requestRedirectURI = "request.redirect_uri"
    case requestPKCE = "request.pkce"
    // The identity token delivered with the code (`response_type=code id_token`): first how the relying party uses
    // it at all, then that token broken one way per case.
    case idTokenUnvalidated = "id_token.unvalidated"
    case idTokenNonceNotSent = "id_token.nonce_not_sent"
    case idTokenSignature = "id_token.signature"
    case idTokenForeignKey = "id_token.foreign_key"
    case idTokenAlgNone = "id_token.alg_none"
    case idTokenHS256PublicKey = "id_token.hs256_public_key"
    case idTokenAlgNoneMixedCase = "id_token.alg_none_case"
    case idTokenAlgNoneSigned = "id_token.alg_none_signed"
    case idTokenCarriesItsOwnKey = "id_token.jwk_header"
    case idTokenCarriesItsCertificate = "id_token.x5c_header"
    case idTokenHS256KeyForms = "id_token.hs256_key_forms"
    case idTokenKidTricks = "id_token.kid_tricks"
    case idTokenUnknownKid = "id_token.unknown_kid"
    case idTokenIssuer = "id_token.iss"
    case idTokenAudience = "id_token.aud"
    case idTokenAudienceArray = "id_token.aud_array"
    case idTokenExpired = "id_token.expired"
    case idTokenIssuedInFuture = "id_token.iat_future"
    case idTokenNonce = "id_token.nonce"
    case idTokenNonceMissing = "id_token.nonce_missing"
    case idTokenCodeHash = "id_token.c_hash"
    case idTokenSubjectMismatch = "id_token.sub_mismatch"
    case idTokenMissingSubject = "id_token.missing_sub"
    case idTokenMissingIssuer = "id_token.missing_iss"
    case idTokenMissingAudience = "id_token.missing_aud"
    case idTokenMissingExpiry = "id_token.missing_exp"
    case idTokenMissingIssuedAt = "id_token.missing_iat"
    case idTokenSubjectArray = "id_token.sub_array"
    case idTokenSubjectDuplicate = "id_token.sub_duplicate"
    case idTokenIssuedLongAgo = "id_token.iat_stale"
    case idTokenExpiryFarFuture = "id_token.exp_huge"
    case idTokenExpiryAsString = "id_token.claim_types"
    case idTokenUnknownCritical = "id_token.crit_unknown"
    case idTokenOtherAlgorithm = "id_token.alg_other_rsa"
    // The identity token `/auth/token` answers the code exchange with.
    case tokenIDTokenSignature = "token_id_token.signature"
    case tokenIDTokenForeignKey = "token_id_token.foreign_key"
    case tokenIDTokenAlgNone = "token_id_token.alg_none"
    case tokenIDTokenHS256PublicKey = "token_id_token.hs256_public_key"
    case tokenIDTokenUnknownKid = "token_id_token.unknown_kid"
    case tokenIDTokenIssuer = "token_id_token.iss"
    case tokenIDTokenAudience = "token_id_token.aud"
    case tokenIDTokenAudienceArray = "token_id_token.aud_array"
    case tokenIDTokenExpired = "token_id_token.expired"
    case tokenIDTokenIssuedInFuture = "token_id_token.iat_future"
    case tokenIDTokenNonce = "token_id_token.nonce"
    case tokenIDTokenNonceMissing = "token_id_token.nonce_missing"
    case tokenIDTokenSubjectMismatch = "token_id_token.sub_mismatch"
    case tokenIDTokenMissingSubject = "token_id_token.missing_sub"
    case tokenIDTokenMissingIssuer = "token_id_token.missing_iss"
    case tokenIDTokenMissingAudience = "token_id_token.missing_aud"
    case tokenIDTokenMissingExpiry = "token_id_token.missing_exp"
    case tokenIDTokenMissingIssuedAt = "token_id_token.missing_iat"
    case tokenIDTokenSubjectArray = "token_id_token.sub_array"
    case tokenIDTokenIssuedLongAgo = "token_id_token.iat_stale"
    case tokenIDTokenExpiryFarFuture = "token_id_token.exp_huge"
    case tokenIDTokenExpiryAsString = "token_id_token.claim_types"
    case tokenIDTokenUnknownCritical = "token_id_token.crit_unknown"
    case tokenIDTokenOtherAlgorithm = "token_id_token.alg_other_rsa"
    // Apple's form_post to the return URL.
    case callbackStateMissing = "callback.state_missing"
    case callbackStateWrong = "callback.state_wrong"
    case callbackStateOtherSession = "callback.state_other_session"
    case callbackReplay = "callback.replay"
    case callbackCancel = "callback.cancel"
    case callbackUserEmailMismatch = "callback.user_email_mismatch"
    case callbackUserEmailOnly = "callback.user_email_only"
    case callbackUserOnReturn = "callback.user_on_return"
    case callbackNoEmail = "callback.no_email"
    case callbackRelayEmail = "callback.relay_email"
    case callbackStringBooleans = "callback.string_booleans"
    case callbackRelayNewDomain = "callback.relay_new_domain"
    case callbackEmailLookalike = "callback.email_lookalike"
    case callbackResponseModeMismatch = "callback.response_mode_mismatch"
    // The browser between Apple and the relying party.
    case cookiesSlowPerson = "cookies.slow_person"
    // The token endpoint.
    case tokenInvalidGrant = "token.invalid_grant"
    case tokenServerError = "token.server_error"
    case tokenSlow = "token.slow"
    case tokenShape = "token.shape"
    // An iOS app's backend, which takes the identity token the app posts (--native).
    case nativeSignature = "native.signature"
    case nativeAudience = "native.aud"
    case nativeExpired = "native.expired"
    case nativeNonce = "native.nonce"
    case nativeOtherTeam = "native.other_team"
    case nativeSameTeamOtherApp = "native.aud_same_team_other_app"
    // The server-to-server notification endpoint (--notifications).
    case notificationsForged = "notifications.forged"
    case notificationsAudience = "notifications.aud"
    case notificationsIssuer = "notifications.iss"
    case notificationsExpired = "notifications.expired"
    case notificationsReplay = "notifications.replay"
    case notificationsConsentRevoked = "notifications.consent_revoked"
    case notificationsAccountDelete = "notifications.account_delete"
    case notificationsEmailDisabled = "notifications.email_disabled"
    case notificationsEmailEnabled = "notifications.email_enabled"
    case notificationsUnknownType = "notifications.unknown_type"
    case notificationsRetried = "notifications.retried"
    // The signing keys: rotated while the relying party holds a cached copy, then again while /auth/keys is down.
    case keysRotation = "keys.rotation"
    case keysUnreachable = "keys.unreachable"

    /// The stable id (`id_token.signature`).
    public var id: String { rawValue }

    /// Whether the case is judged by how the relying party uses the identity token that comes with the code
    /// (the learning step's front-channel probe): a relying party that never reads that token cannot be harmed
    /// by it, and such cases are then judged once, as `id_token.unvalidated`.
    var dependsOnFrontChannelUse: Bool {
        id.hasPrefix("id_token.") || self == .tokenIDTokenSubjectMismatch
    }

    /// The fault that breaks the token endpoint's identity token in a `token_id_token.*` case; nil for any other case.
    var tokenEndpointFault: Fault.IdentityTokenFault? {
        switch self {
        case .tokenIDTokenSignature: .badSignature
        case .tokenIDTokenForeignKey: .foreignKey
        case .tokenIDTokenAlgNone: .algNone
        case .tokenIDTokenHS256PublicKey: .hs256PublicKey
        case .tokenIDTokenUnknownKid: .unknownKid
        case .tokenIDTokenIssuer: .wrongIssuer
        case .tokenIDTokenAudience: .wrongAudience
        case .tokenIDTokenAudienceArray: .audienceArray
        case .tokenIDTokenExpired: .expired
        case .tokenIDTokenIssuedInFuture: .notYetValid
        case .tokenIDTokenNonce: .wrongNonce
        case .tokenIDTokenNonceMissing: .noNonce
        case .tokenIDTokenSubjectMismatch: .otherSubject
        case .tokenIDTokenMissingSubject: .noSubject
        case .tokenIDTokenMissingIssuer: .noIssuer
        case .tokenIDTokenMissingAudience: .noAudience
        case .tokenIDTokenMissingExpiry: .noExpiry
        case .tokenIDTokenMissingIssuedAt: .noIssuedAt
        case .tokenIDTokenSubjectArray: .subjectArray
        case .tokenIDTokenIssuedLongAgo: .issuedLongAgo
        case .tokenIDTokenExpiryFarFuture: .expiryFarFuture
        case .tokenIDTokenExpiryAsString: .expiryAsString
        case .tokenIDTokenUnknownCritical: .unknownCriticalHeader
        case .tokenIDTokenOtherAlgorithm: .otherAlgorithm
        default: nil
        }
    }

    /// The fault of this front-channel case's twin at the token endpoint (`id_token.exp_huge`: `token_id_token.exp_huge`'s).
    var twinTokenEndpointFault: Fault.IdentityTokenFault? {
        guard id.hasPrefix("id_token.") else { return nil }
        return AuditCase(rawValue: "token_" + id)?.tokenEndpointFault
    }

    /// Whether the case's token is signed by Apple's own key, so that only whoever holds it could make one: a miss is a
    /// should, and using the code before refusing it is no caution.
    var onlyApplesKeyCouldSign: Bool {
        switch twinTokenEndpointFault {
        case .issuedLongAgo?, .expiryFarFuture?, .unknownCriticalHeader?, .otherAlgorithm?: true
        default: self == .idTokenSubjectDuplicate
        }
    }

    /// What the relying party is expected to do.
    public enum Expectation: String, Sendable, Codable {
        /// It must not sign the person in.
        case refuse
        /// It must sign the person in.
        case accept
        /// It may sign the person in when the answer comes, or refuse cleanly.
        case acceptOrRefuse
        /// It must not act on a notification: the signed-in session stays.
        case ignore
        /// It should act on a notification: the signed-in session ends.
        case act
        /// Its authorize request must ask for something (judged from the honest sign-in's request, not played).
        case ask
        /// It must keep the session (the notification revokes nothing), and should answer 2xx.
        case acknowledge
    }

    /// What a case asks of the relying party, and how a miss is graded.
    public struct Rule: Sendable {
        /// What Apple's side does, in plain words.
        public let appleSide: String
        /// Whether the relying party must refuse, accept, or ignore what Apple's side does.
        public let expectation: Expectation
        /// What the relying party must (or should) do.
        public let rpMust: String
        /// True when a miss is a WARN (a should), not a FAIL.
        public let missIsWarning: Bool
        /// Where the rule comes from.
        public let reference: String
    }

    /// The cases whose id matches one of `patterns` (an id, or a prefix ending in `*`, such as `id_token.*`),
    /// in this enum's order, and the patterns that match no case.
    public static func selected(by patterns: [String]) -> (cases: [AuditCase], unmatched: [String]) {
        var unmatched: [String] = []
        var chosen = Set<AuditCase>()
        for pattern in patterns {
            let matches = allCases.filter { $0.matches(pattern) }
            if matches.isEmpty { unmatched.append(pattern) }
            chosen.formUnion(matches)
        }
        return (allCases.filter(chosen.contains), unmatched)
    }

    private func matches(_ pattern: String) -> Bool {
        guard pattern.hasSuffix("*") else { return id == pattern }
        return id.hasPrefix(pattern.dropLast())
    }
}
