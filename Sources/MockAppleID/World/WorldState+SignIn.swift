import Foundation

/// A sign-in to record: web (from a validated authorization request) or native (from the device).
struct SignInRequest: Sendable {
    let client: Client
    let personaID: String
    let scopes: [Scope]
    /// Share or hide on a first consent (nil: the persona's default).
    let emailChoice: EmailChoice?
    /// nil for native codes; then the exchange must send none.
    let redirectURI: String?
    let nonce: String?
    let challenge: PKCEChallenge?
    let native: Bool
    /// For native sign-ins: overrides the persona's `real_user_status`.
    var realUserStatus: RealUserStatus? = nil
}

extension SignInRequest {
    init(_ request: AuthorizationRequest, personaID: String, emailChoice: EmailChoice?) {
        self.init(client: request.client, personaID: personaID, scopes: request.scopes, emailChoice: emailChoice,
                  redirectURI: request.redirectURI, nonce: request.nonce, challenge: request.codeChallenge, native: false)
    }
}

/// A sign-in the world recorded.
struct ApprovedSignIn: Sendable {
    let persona: Persona
    let consent: Consent
    /// Who signed in to which team: the `sub` and relay address are derived from it when asked for,
    /// after the world's lock is given back.
    let account: TeamAccount
    var subject: String { account.subject }
    /// The persona's relay address under the client's team (tokens carry it when the email is hidden).
    var relayAddress: String { account.relayAddress }
    let isFirstConsent: Bool
    let authTime: Date
    /// `transfer_sub`, while the app group's transfer window is open for this user.
    let transferSubject: String?
}

/// A code or refresh token that was accepted.
struct RedeemedGrant: Sendable {
    let persona: Persona
    let consent: Consent
    /// Who signed in to which team (see ``ApprovedSignIn/account``).
    let account: TeamAccount
    var subject: String { account.subject }
    /// The persona's relay address under the client's team (tokens carry it when the email is hidden).
    var relayAddress: String { account.relayAddress }
    let nonce: String?
    let authTime: Date
    /// `real_user_status` of a native first authorization's code; nil otherwise.
    let realUserStatus: RealUserStatus?
    /// `transfer_sub`, while the app group's transfer window is open for this user.
    let transferSubject: String?
}

/// An account (a persona, re-created or not) under a team: what its `sub` and relay address derive from.
struct TeamAccount: Sendable {
    /// ``WorldState/accountKey(_:)`` of the persona.
    let accountKey: String
    let teamID: String
    let relayDomain: RelayOptions.AddressDomain

    var subject: String { AppleIdentifiers.subject(teamID: teamID, personaID: accountKey) }
    var relayAddress: String { AppleIdentifiers.relayEmail(teamID: teamID, personaID: accountKey, domain: relayDomain) }
}

/// A code exchange as the token endpoint read it.
struct CodeExchange: Sendable {
    let code: String
    let clientID: String
    let redirectURI: String?
    let codeVerifier: String?
}

/// Fresh opaque tokens for a code exchange, made before taking the lock.
struct IssuedTokens: Sendable {
    let accessToken: String
    let refreshToken: String
}

/// Lifetimes the world applies.
struct GrantLimits: Sendable {
    let codeLifetime: TimeInterval
    let accessTokenLifetime: TimeInterval
    let refreshTokensPerClient: Int
}

/// Whose refresh tokens count together towards ``GrantLimits/refreshTokensPerClient``.
struct RefreshTokenOwner: Hashable, Sendable, Codable {
    let consent: ConsentKey
    let clientID: String
}

/// `token_type_hint` of `/auth/revoke`.
public enum TokenTypeHint: String, Sendable {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"
}

extension WorldState {
    /// Records the sign-in: consent on the first sign-in to the group, and a code.
    mutating func approve(_ request: SignInRequest, code: String, now: Date, limits: GrantLimits,
                          events: inout [DomainEvent]) throws(AppleError) -> ApprovedSignIn {
        purgeExpiredIfDue(now: now, limits: limits)
        guard let persona = persona(request.personaID) else {
            throw AppleError(.invalidRequest, description: "Unknown account.", reason: "persona \"\(request.personaID)\" does not exist")
        }
        guard !deletedAccounts.contains(persona.id) else {
            throw AppleError(.invalidRequest, description: "Unknown account.",
                             reason: "persona \"\(persona.id)\"'s Apple Account was deleted; re-create the persona to sign in again")
        }
        let key = ConsentKey(personaID: persona.id, groupID: request.client.groupID)
        let existing = consents[key]
        let consent = existing ?? Consent(
            personaID: persona.id, groupID: key.groupID,
            scopes: Set(request.scopes.filter { $0 != .email || persona.email != nil }),
            emailChoice: persona.canHideEmail ? (request.emailChoice ?? persona.emailChoice) : .share,
            grantedAt: now)
        consents[key] = consent
        if consent.usesRelayAddress { giveOutRelayAddress(personaID: persona.id, teamID: request.client.teamID) }
        codes[code] = IssuedCode(
            code: code, clientID: request.client.id, consent: key, redirectURI: request.redirectURI,
            nonce: request.nonce, challenge: request.challenge, issuedAt: now, authTime: now,
            realUserStatus: request.native && existing == nil ? request.realUserStatus ?? persona.realUserStatus : nil)
        events.append(.signInApproved(personaID: persona.id, clientID: request.client.id, firstConsent: existing == nil, native: request.native))
        return ApprovedSignIn(persona: persona, consent: consent, account: account(personaID: persona.id, teamID: request.client.teamID),
                              isFirstConsent: existing == nil, authTime: now,
                              transferSubject: transferSubject(personaID: persona.id, groupID: key.groupID, at: now))
    }

    /// Redeems a code, checking in turn: known, unexpired, unused, same client, redirect URI, PKCE.
    mutating func redeem(_ request: CodeExchange, now: Date, limits: GrantLimits, tokens: IssuedTokens,
                         events: inout [DomainEvent]) throws(AppleError) -> RedeemedGrant {
        guard var issued = codes[exactly: request.code] else {
            throw AppleError(.invalidGrant, description: "The code has expired or has been revoked.",
                             reason: "code is not held: never issued, its grant was revoked, or it expired and was forgotten")
        }
        guard now < issued.issuedAt.addingTimeInterval(limits.codeLifetime) else {
            let late = TimeRange.wholeSeconds(now.timeIntervalSince(issued.issuedAt) - limits.codeLifetime)
            throw AppleError(.invalidGrant, description: "The code has expired or has been revoked.",
                             reason: "code expired \(late) s ago (codes live \(TimeRange.wholeSeconds(limits.codeLifetime)) s)")
        }
        guard !issued.redeemed else {
            throw AppleError(.invalidGrant, description: "The code has already been used.",
                             reason: "code was already exchanged; codes are single-use")
        }
        guard issued.clientID == request.clientID else {
            throw AppleError(.invalidGrant, description: "client_id mismatch. The code was not issued to \(request.clientID).",
                             reason: "code was issued to \(issued.clientID), exchanged as \(request.clientID)")
        }
        try Self.checkRedirect(issued: issued.redirectURI, given: request.redirectURI)
        try Self.checkPKCE(issued.challenge, verifier: request.codeVerifier)
        guard let consent = consents[issued.consent], let persona = persona(issued.consent.personaID) else {
            throw AppleError(.invalidGrant, description: "The code has expired or has been revoked.",
                             reason: "the persona's consent was revoked after the code was issued")
        }
        issued.redeemed = true
        codes[request.code] = issued
        keepRefreshGrant(RefreshGrant(token: tokens.refreshToken, clientID: issued.clientID, consent: issued.consent,
                                      authTime: issued.authTime), limit: limits.refreshTokensPerClient)
        accessGrants[tokens.accessToken] = AccessGrant(
            token: tokens.accessToken, clientID: issued.clientID, consent: issued.consent,
            expiresAt: now.addingTimeInterval(limits.accessTokenLifetime))
        events.append(.codeRedeemed(personaID: persona.id, clientID: issued.clientID))
        return redeemed(persona, consent, clientID: issued.clientID, now: now, nonce: issued.nonce, authTime: issued.authTime,
                        realUserStatus: issued.realUserStatus)
    }

    private static func checkRedirect(issued: String?, given: String?) throws(AppleError) {
        switch (issued, given) {
        case let (expected?, nil):
            throw AppleError(.invalidRequest, reason: "redirect_uri is missing; the code was issued for \(expected)")
        case let (expected, given?) where !expected.sameBytes(as: given):
            throw AppleError(.invalidGrant, description: "redirect_uri mismatch. The code was not issued to \(given).",
                             reason: "code was issued for \(expected ?? "no redirect_uri (native)"), exchanged with \(given)")
        default:
            return
        }
    }

    private static func checkPKCE(_ challenge: PKCEChallenge?, verifier: String?) throws(AppleError) {
        switch (challenge, verifier) {
        case (nil, nil):
            return
        case (nil, .some):
            throw AppleError(.invalidGrant, reason: "code_verifier sent, but the authorization request had no code_challenge")
        case (.some, nil):
            throw AppleError(.invalidGrant, reason: "the authorization request had a code_challenge; code_verifier is required")
        case let (challenge?, verifier?):
            guard challenge.isAnswered(by: verifier) else {
                throw AppleError(.invalidGrant, reason: "code_verifier does not match the \(challenge.method.rawValue) code_challenge")
            }
        }
    }

    /// Issues a new access token on a refresh token of `clientID`. One the persona's own revocation ended
    /// is answered with `afterConsentRevoked` (`errors.refreshAfterConsentRevoked`).
    mutating func refresh(_ token: String, clientID: String, accessToken: String, now: Date, limits: GrantLimits,
                          afterConsentRevoked: AppleErrorCode, events: inout [DomainEvent]) throws(AppleError) -> RedeemedGrant {
        purgeExpiredIfDue(now: now, limits: limits)
        guard let grant = refreshGrants[exactly: token] else {
            if let ended = refreshTokenEndedByUser(token, clientID: clientID) {
                let when = ended.endedAt.formatted(.iso8601)
                throw AppleError(afterConsentRevoked,
                                 description: afterConsentRevoked == .invalidGrant ? "The token has expired or has been revoked." : nil,
                                 reason: "persona \(ended.consent.personaID) stopped using Sign in with Apple with app group \(ended.consent.groupID) at \(when), which ended this refresh token")
            }
            throw AppleError(.invalidGrant, description: "The token has expired or has been revoked.",
                             reason: "refresh_token is unknown or was revoked")
        }
        guard grant.clientID == clientID else {
            throw AppleError(.invalidGrant, reason: "refresh_token was issued to \(grant.clientID), used by \(clientID)")
        }
        guard let consent = consents[grant.consent], let persona = persona(grant.consent.personaID) else {
            throw AppleError(.invalidGrant, description: "The token has expired or has been revoked.", reason: "the persona's consent is gone")
        }
        accessGrants[accessToken] = AccessGrant(
            token: accessToken, clientID: clientID, consent: grant.consent, expiresAt: now.addingTimeInterval(limits.accessTokenLifetime))
        events.append(.tokensRefreshed(personaID: persona.id, clientID: clientID))
        return redeemed(persona, consent, clientID: clientID, now: now, nonce: nil, authTime: grant.authTime, realUserStatus: nil)
    }

    private func redeemed(_ persona: Persona, _ consent: Consent, clientID: String, now: Date, nonce: String?, authTime: Date,
                          realUserStatus: RealUserStatus?) -> RedeemedGrant {
        let teamID = directory.client(clientID)?.teamID ?? ""
        return RedeemedGrant(persona: persona, consent: consent, account: account(personaID: persona.id, teamID: teamID), nonce: nonce, authTime: authTime,
                             realUserStatus: realUserStatus,
                             transferSubject: transferSubject(personaID: persona.id, groupID: consent.groupID, at: now))
    }

    /// Revokes the grant behind a refresh or access token: consent, codes and every token of that
    /// persona for that app group, so the next sign-in is a first one (`settings.refreshTokenRevocation:
    /// consent`), or the token alone (`token`). Unknown tokens and other clients' tokens change nothing
    /// (Apple answers 200 all the same). With `refusingMismatch`, a `token_type_hint` that names the other
    /// kind of this client's token is refused (`invalid_request`, as TN3107 has it); otherwise it only
    /// decides nothing, a token being of one kind only.
    mutating func revoke(_ token: String, clientID: String, hint: TokenTypeHint?, refusingMismatch: Bool,
                         ending: ProviderSettings.TokenRevocation, now: Date, events: inout [DomainEvent]) throws(AppleError) {
        let found: (kind: TokenTypeHint, clientID: String, consent: ConsentKey)?
        if let refresh = refreshGrants[exactly: token] {
            found = (.refreshToken, refresh.clientID, refresh.consent)
        } else {
            found = accessGrant(token, now: now).map { (.accessToken, $0.clientID, $0.consent) }
        }
        guard let found, found.clientID.sameBytes(as: clientID) else {
            events.append(.revocationIgnored(clientID: clientID, tokenOwner: found?.clientID))
            return
        }
        if refusingMismatch, let hint, hint != found.kind {
            throw AppleError(.invalidRequest, reason: "token_type_hint is \(hint.rawValue), but the token is a \(found.kind == .refreshToken ? "refresh" : "access") token of this client; nothing was revoked (errors.revokeHintMismatch: ignore revokes it all the same)")
        }
        switch ending {
        case .consent:
            revokeConsent(found.consent, cause: .revokeEndpoint, at: now, events: &events)
        case .token:
            if found.kind == .refreshToken { dropRefreshGrant(token) } else { accessGrants[token] = nil }
            events.append(.tokenRevoked(personaID: found.consent.personaID, clientID: clientID, kind: found.kind.rawValue))
        }
    }

    private func accessGrant(_ token: String, now: Date) -> (clientID: String, consent: ConsentKey)? {
        guard let grant = accessGrants[exactly: token], grant.expiresAt > now else { return nil }
        return (grant.clientID, grant.consent)
    }

    /// Ends a consent with its codes and tokens (those the persona ended are remembered as such).
    mutating func revokeConsent(_ key: ConsentKey, cause: RevocationCause, at now: Date, events: inout [DomainEvent]) {
        if cause == .userRevoked { rememberRefreshTokensEndedByUser(of: key, at: now) }
        consents[key] = nil
        codes.removeAll { $1.consent == key }
        refreshGrants.removeAll { $1.consent == key }
        refreshTokensByOwner.removeAll { owner, _ in owner.consent == key }
        accessGrants.removeAll { $1.consent == key }
        forgetUnusedRelayForwarding(of: key.personaID)
        events.append(.consentRevoked(personaID: key.personaID, groupID: key.groupID, cause: cause))
    }

    /// Drops codes and access tokens that can no longer be used (an expired code answers the same
    /// `invalid_grant` as an unknown one) once ``purgeInterval`` of clock time has passed since the last
    /// purge, or sooner once many are held, so that long runs of sign-ins or of refreshes do not grow
    /// without bound, and a jump of the clock frees what it expired before more is added. Called by
    /// every transition that adds either.
    private mutating func purgeExpiredIfDue(now: Date, limits: GrantLimits) {
        // A clock moved back before the last purge starts the interval again from there.
        let due = purgedAt.map { now < $0 || now.timeIntervalSince($0) >= Self.purgeInterval } ?? true
        guard due || codes.count + accessGrants.count >= purgeThreshold else { return }
        purgedAt = now
        codes.removeAll { now >= $1.issuedAt.addingTimeInterval(limits.codeLifetime) }
        accessGrants.removeAll { $1.expiresAt <= now }
        let threshold = max(Self.minimumPurgeThreshold, (codes.count + accessGrants.count) * 2)
        if threshold != purgeThreshold { purgeThreshold = threshold }
    }
}
