import Foundation

/// The knobs of Apple's behaviour that a scenario may turn. Every field has Apple's observed default.
public struct ProviderSettings: Sendable, Equatable {
    /// `iss` of identity tokens and the discovery document's `issuer`.
    public var issuer: String = "https://appleid.apple.com"
    /// The `aud` a client secret must carry.
    public var clientSecretAudience: String = "https://appleid.apple.com"
    /// Allow `http://localhost` and loopback-IP return URLs (Apple refuses them; handy for local development).
    public var allowLoopbackReturnURLs: Bool = false
    /// Allow loopback `http://` notification URLs; nil (the default) does as ``allowLoopbackReturnURLs`` says.
    public var allowLoopbackNotificationURLs: Bool?
    /// The rule registered return URLs follow.
    public var returnURLPolicy: ReturnURLPolicy { ReturnURLPolicy(allowLoopback: allowLoopbackReturnURLs) }
    /// The rule notification URLs follow.
    public var notificationURLPolicy: ReturnURLPolicy {
        ReturnURLPolicy(allowLoopback: allowLoopbackNotificationURLs ?? allowLoopbackReturnURLs, setting: "allowLoopbackNotificationURLs")
    }
    /// Authorization codes live 5 minutes.
    public var codeLifetime: TimeInterval = 300
    /// Access tokens live an hour (`expires_in`).
    public var accessTokenLifetime: TimeInterval = 3600
    /// How far in the future a client secret's `iat` may be before it is refused.
    public var clientSecretIssuedAtTolerance: TimeInterval = 60
    /// The longest a client secret may still have to live (`exp - now`), Apple's 15,777,000 s.
    public var clientSecretMaxLifetime: TimeInterval = 15_777_000
    /// Refresh tokens kept per persona and client; issuing one more revokes the oldest (Apple
    /// documents no such limit; this one keeps memory flat when a test signs in without end).
    public var refreshTokensPerClient: Int = 100
    /// The range ``refreshTokensPerClient`` must fall in.
    public static let refreshTokensPerClientRange = 1...100_000
    /// List `/auth/keys` in a different order on each fetch, as Apple's does (an RP that takes `keys[0]` fails).
    public var shuffleJWKS: Bool = false
    /// What revoking a token at `/auth/revoke` ends (`settings.refreshTokenRevocation`).
    public var refreshTokenRevocation = TokenRevocation.consent
    /// Whether a `code_challenge` is checked (`settings.pkce`).
    public var pkce = PKCEHandling.enforce
    /// Where Apple's technote and Apple's observed answers differ: the default follows the technote.
    public var errors = ErrorAnswers()
    /// How identity tokens are shaped.
    public var claims = ClaimOptions()
    /// How server-to-server notifications are shaped and retried.
    public var notifications = NotificationOptions()
    /// How the private email relay takes mail.
    public var relay = RelayOptions()

    public init() {}

    /// What `/auth/revoke` ends. Whether revoking one refresh token ends the person's other tokens for the
    /// app is asked on Apple's forums (thread 859842) and not answered.
    public enum TokenRevocation: String, Sendable, CaseIterable {
        /// The persona's consent to the app group, with every code and token under it, so the next sign-in
        /// is a first one (as WWDC22 and TN3194 describe revocation).
        case consent
        /// The token given alone (RFC 7009): the consent and the persona's other tokens stay.
        case token
    }

    /// PKCE at `/auth/authorize` and `/auth/token`. Apple documents none and its discovery document
    /// advertises no `code_challenge_methods_supported`; relying parties reported in 2024 that an exchange
    /// without the verifier of a challenge they sent was refused.
    public enum PKCEHandling: String, Sendable, CaseIterable {
        /// RFC 7636: a `code_challenge` is validated and its verifier required at the exchange.
        case enforce
        /// The parameters are accepted and not checked.
        case ignore
    }
}

/// The answers to requests that TN3107 ("Resolving Sign in with Apple response errors") names, where an
/// answer observed from Apple differs: each default is the technote's, each alternative an observed one
/// (docs/apple-reference.md §2.4 gives the sources).
public struct ErrorAnswers: Sendable, Equatable {
    /// `/auth/revoke` with a `token_type_hint` that names the other kind of token.
    public enum HintMismatch: String, Sendable, CaseIterable {
        /// Refused with `invalid_request`, as TN3107 has it.
        case invalidRequest = "invalid_request"
        /// Revoked all the same (the hint only says which kind is looked up first), as RFC 7009 allows.
        case ignore
    }

    /// A client secret whose `iat` or `exp` has a fraction of a second (RFC 7519 allows it).
    public enum FractionalTimes: String, Sendable, CaseIterable {
        /// Compared as numbers, as JWT libraries do.
        case accept
        /// `invalid_client`.
        case refuse
    }

    public var revokeHintMismatch = HintMismatch.invalidRequest
    /// A refresh token whose persona stopped using Sign in with Apple with the app (TN3107:
    /// `invalid_request`, "the user has revoked authorization for the client"; or `invalid_grant`).
    public var refreshAfterConsentRevoked = AppleErrorCode.invalidRequest
    /// A token or revoke request whose body is not `application/x-www-form-urlencoded` (TN3107:
    /// `invalid_request`; `invalid_client` and `unsupported_grant_type` were observed).
    public var nonFormBody = AppleErrorCode.invalidRequest
    public var clientSecretFractionalTimes = FractionalTimes.accept

    /// The sending team's `/auth/usermigrationinfo` for a user it has only through an app group it
    /// transferred away.
    public enum MigrationAfterTransfer: String, Sendable, CaseIterable {
        /// Answered with a `transfer_sub` while the transfer's 60 days last, as TN3159 promises.
        case answer
        /// `invalid_client` at once, as a 2026 forum report describes.
        case invalidClient
    }

    /// The sending team's `/auth/usermigrationinfo` right after it transferred the app group away (TN3159: answered).
    public var userMigrationInfoAfterTransfer = MigrationAfterTransfer.answer

    /// The codes each knob may take.
    public static let refreshAfterConsentRevokedCodes: [AppleErrorCode] = [.invalidRequest, .invalidGrant]
    public static let nonFormBodyCodes: [AppleErrorCode] = [.invalidRequest, .invalidClient, .unsupportedGrantType]

    public init() {}
}

/// How identity tokens are shaped: claim types and times as Apple has emitted them over the years.
public struct ClaimOptions: Sendable, Equatable {
    /// JSON booleans (since Feb 2024), `"true"`/`"false"` strings (before), or mixed in one token.
    public enum BooleanStyle: String, Sendable, CaseIterable {
        /// `email_verified: true`, `is_private_email: true`.
        case boolean
        /// `email_verified: "true"`, `is_private_email: "true"`.
        case string
        /// `email_verified: true`, `is_private_email: "true"`.
        case mixed
    }

    public var booleans: BooleanStyle = .boolean
    /// `exp - iat` of identity tokens: 86,400 s today, 600 s before Sep 2020.
    public var idTokenLifetime: TimeInterval = 86_400
    /// Added to every emitted `iat`, `exp` and `auth_time` (a positive value plays an IdP clock that runs ahead).
    public var emittedTimeSkew: TimeInterval = 0
    /// Whether a refresh-grant response carries an `id_token` (it has since Aug 2020).
    public var refreshReturnsIDToken: Bool = true
    /// Whether the identity token of a native first authorization's code exchange carries
    /// `real_user_status` too (unconfirmed; the device's identity token always does).
    public var realUserStatusInCodeExchange: Bool = false

    public init() {}
}
