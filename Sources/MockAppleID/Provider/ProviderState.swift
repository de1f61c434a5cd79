import Foundation

/// The mutable half of a provider: personas, consents, codes and tokens. Every transition is one
/// actor call, so parallel requests never see half a change; signing happens outside it.
actor ProviderState {
    private var personas: [Persona]
    private var consents: [ConsentKey: Consent] = [:]
    private var codes: [String: IssuedCode] = [:]
    private var refreshGrants: [String: RefreshGrant] = [:]
    private var accessGrants: [String: AccessGrant] = [:]
    private(set) var autoApprove: AutoApprove?
    /// When codes and access tokens held reach this many, expired ones are dropped.
    private var purgeThreshold = ProviderState.minimumPurgeThreshold
    static let minimumPurgeThreshold = 10_000

    init(personas: [Persona], autoApprove: AutoApprove?) {
        self.personas = personas
        self.autoApprove = autoApprove
    }

    /// Back to the scenario's starting point: its personas, no consents, no codes, no tokens.
    func reset(personas: [Persona], autoApprove: AutoApprove?) {
        self.personas = personas
        self.autoApprove = autoApprove
        consents = [:]
        codes = [:]
        refreshGrants = [:]
        accessGrants = [:]
    }

    // MARK: Personas

    func allPersonas() -> [Persona] { personas }

    func persona(_ id: String) -> Persona? { personas.first { $0.id == id } }

    func create(_ persona: Persona) throws(PersonaError) {
        guard self.persona(persona.id) == nil else { throw .alreadyExists(persona.id) }
        try PersonaError.check(persona)
        personas.append(persona)
    }

    func update(_ persona: Persona) throws(PersonaError) {
        guard let index = personas.firstIndex(where: { $0.id == persona.id }) else { throw .notFound(persona.id) }
        try PersonaError.check(persona)
        personas[index] = persona
    }

    func setAutoApprove(_ value: AutoApprove?) throws(PersonaError) {
        if let value, persona(value.persona) == nil { throw .notFound(value.persona) }
        autoApprove = value
    }

    func consent(personaID: String, groupID: String) -> Consent? {
        consents[ConsentKey(personaID: personaID, groupID: groupID)]
    }

    // MARK: Sign-in

    /// Records the sign-in of `personaID` for `request`: consent on first sign-in to the group, and a code.
    func approve(
        _ request: AuthorizationRequest, personaID: String, emailChoice: EmailChoice?, code: String, now: Date, limits: GrantLimits
    ) -> Result<ApprovedSignIn, AuthorizeError> {
        purgeExpiredIfLarge(now: now, limits: limits)
        guard let persona = persona(personaID) else {
            return .failure(AuthorizeError(.invalidRequest, "Unknown account.", reason: "persona \"\(personaID)\" does not exist"))
        }
        let key = ConsentKey(personaID: persona.id, groupID: request.client.groupID)
        let existing = consents[key]
        let consent = existing ?? Consent(
            personaID: persona.id, groupID: key.groupID,
            scopes: Set(request.scopes.filter { $0 != .email || persona.email != nil }),
            emailChoice: persona.canHideEmail ? (emailChoice ?? persona.emailChoice) : .share,
            grantedAt: now)
        consents[key] = consent
        codes[code] = IssuedCode(
            code: code, clientID: request.client.id, consent: key, redirectURI: request.redirectURI,
            nonce: request.nonce, challenge: request.codeChallenge, issuedAt: now, authTime: now)
        return .success(ApprovedSignIn(persona: persona, consent: consent, isFirstConsent: existing == nil, authTime: now))
    }

    /// Redeems a code for `clientID`, checking in turn: known, unexpired, unused, same client, redirect URI, PKCE.
    func redeem(_ request: CodeExchange, now: Date, limits: GrantLimits, tokens: IssuedTokens) -> Result<RedeemedGrant, AppleError> {
        guard var issued = codes[request.code] else {
            return .failure(AppleError(.invalidGrant, description: "The code has expired or has been revoked.",
                                       reason: "code was never issued, or its grant was revoked"))
        }
        guard now < issued.issuedAt.addingTimeInterval(limits.codeLifetime) else {
            return .failure(AppleError(.invalidGrant, description: "The code has expired or has been revoked.",
                                       reason: "code expired \(Int(now.timeIntervalSince(issued.issuedAt) - limits.codeLifetime)) s ago (codes live \(Int(limits.codeLifetime)) s)"))
        }
        guard !issued.redeemed else {
            return .failure(AppleError(.invalidGrant, description: "The code has already been used.",
                                       reason: "code was already exchanged; codes are single-use"))
        }
        guard issued.clientID == request.clientID else {
            return .failure(AppleError(.invalidGrant, description: "client_id mismatch. The code was not issued to \(request.clientID).",
                                       reason: "code was issued to \(issued.clientID), exchanged as \(request.clientID)"))
        }
        if let failure = Self.checkRedirect(issued: issued.redirectURI, given: request.redirectURI) { return .failure(failure) }
        if let failure = Self.checkPKCE(issued.challenge, verifier: request.codeVerifier) { return .failure(failure) }
        guard let consent = consents[issued.consent], let persona = persona(issued.consent.personaID) else {
            return .failure(AppleError(.invalidGrant, description: "The code has expired or has been revoked.",
                                       reason: "the persona's consent was revoked after the code was issued"))
        }
        issued.redeemed = true
        codes[request.code] = issued
        refreshGrants[tokens.refreshToken] = RefreshGrant(
            token: tokens.refreshToken, clientID: issued.clientID, consent: issued.consent, authTime: issued.authTime)
        accessGrants[tokens.accessToken] = AccessGrant(
            token: tokens.accessToken, clientID: issued.clientID, consent: issued.consent,
            expiresAt: now.addingTimeInterval(limits.accessTokenLifetime))
        return .success(RedeemedGrant(persona: persona, consent: consent, nonce: issued.nonce, authTime: issued.authTime))
    }

    private static func checkRedirect(issued: String?, given: String?) -> AppleError? {
        switch (issued, given) {
        case let (expected?, nil):
            return AppleError(.invalidRequest, reason: "redirect_uri is missing; the code was issued for \(expected)")
        case let (expected, given?) where expected != given:
            return AppleError(.invalidGrant, description: "redirect_uri mismatch. The code was not issued to \(given).",
                              reason: "code was issued for \(expected ?? "no redirect_uri (native)"), exchanged with \(given)")
        default:
            return nil
        }
    }

    private static func checkPKCE(_ challenge: PKCEChallenge?, verifier: String?) -> AppleError? {
        switch (challenge, verifier) {
        case (nil, nil):
            return nil
        case (nil, .some):
            return AppleError(.invalidGrant, reason: "code_verifier sent, but the authorization request had no code_challenge")
        case (.some, nil):
            return AppleError(.invalidGrant, reason: "the authorization request had a code_challenge; code_verifier is required")
        case let (challenge?, verifier?):
            guard challenge.isAnswered(by: verifier) else {
                return AppleError(.invalidGrant, reason: "code_verifier does not match the \(challenge.method.rawValue) code_challenge")
            }
            return nil
        }
    }

    /// Issues a new access token on a refresh token of `clientID`.
    func refresh(_ token: String, clientID: String, accessToken: String, now: Date, limits: GrantLimits) -> Result<RedeemedGrant, AppleError> {
        purgeExpiredIfLarge(now: now, limits: limits)
        guard let grant = refreshGrants[token] else {
            return .failure(AppleError(.invalidGrant, description: "The token has expired or has been revoked.",
                                       reason: "refresh_token is unknown or was revoked"))
        }
        guard grant.clientID == clientID else {
            return .failure(AppleError(.invalidGrant, reason: "refresh_token was issued to \(grant.clientID), used by \(clientID)"))
        }
        guard let consent = consents[grant.consent], let persona = persona(grant.consent.personaID) else {
            return .failure(AppleError(.invalidGrant, description: "The token has expired or has been revoked.",
                                       reason: "the persona's consent is gone"))
        }
        accessGrants[accessToken] = AccessGrant(
            token: accessToken, clientID: clientID, consent: grant.consent,
            expiresAt: now.addingTimeInterval(limits.accessTokenLifetime))
        return .success(RedeemedGrant(persona: persona, consent: consent, nonce: nil, authTime: grant.authTime))
    }

    /// Revokes the grant behind a refresh or access token: consent, codes and every token of that
    /// persona for that app group, so the next sign-in is a first one.
    func revoke(_ token: String, clientID: String, hint: TokenTypeHint?, now: Date) -> RevokeOutcome {
        let grant: (clientID: String, consent: ConsentKey)?
        switch hint {
        case .accessToken:
            grant = accessGrant(token, now: now) ?? refreshGrants[token].map { ($0.clientID, $0.consent) }
        case .refreshToken, nil:
            grant = refreshGrants[token].map { ($0.clientID, $0.consent) } ?? accessGrant(token, now: now)
        }
        guard let grant else { return .unknownToken }
        guard grant.clientID == clientID else { return .otherClient(grant.clientID) }
        revokeConsent(grant.consent)
        return .revoked(personaID: grant.consent.personaID, groupID: grant.consent.groupID)
    }

    private func accessGrant(_ token: String, now: Date) -> (clientID: String, consent: ConsentKey)? {
        guard let grant = accessGrants[token], grant.expiresAt > now else { return nil }
        return (grant.clientID, grant.consent)
    }

    /// Once many are held, drops codes and access tokens that can no longer be used (an expired
    /// code answers the same `invalid_grant` as an unknown one), so that long runs of sign-ins or of
    /// refreshes do not grow without bound. Called by every transition that adds either.
    private func purgeExpiredIfLarge(now: Date, limits: GrantLimits) {
        guard codes.count + accessGrants.count >= purgeThreshold else { return }
        codes = codes.filter { now < $0.value.issuedAt.addingTimeInterval(limits.codeLifetime) }
        accessGrants = accessGrants.filter { $0.value.expiresAt > now }
        purgeThreshold = max(Self.minimumPurgeThreshold, (codes.count + accessGrants.count) * 2)
    }

    /// How many codes and access tokens are held.
    var heldCounts: (codes: Int, accessTokens: Int) { (codes.count, accessGrants.count) }

    private func revokeConsent(_ key: ConsentKey) {
        consents[key] = nil
        codes = codes.filter { $0.value.consent != key }
        refreshGrants = refreshGrants.filter { $0.value.consent != key }
        accessGrants = accessGrants.filter { $0.value.consent != key }
    }
}

/// Lifetimes the state applies.
struct GrantLimits: Sendable {
    let codeLifetime: TimeInterval
    let accessTokenLifetime: TimeInterval
}

/// Fresh opaque tokens for a code exchange, made before entering the actor.
struct IssuedTokens: Sendable {
    let accessToken: String
    let refreshToken: String
}

/// A code exchange as the token endpoint read it.
struct CodeExchange: Sendable {
    let code: String
    let clientID: String
    let redirectURI: String?
    let codeVerifier: String?
}

/// A sign-in the state recorded.
struct ApprovedSignIn: Sendable {
    let persona: Persona
    let consent: Consent
    let isFirstConsent: Bool
    let authTime: Date
}

/// A code or refresh token that was accepted.
struct RedeemedGrant: Sendable {
    let persona: Persona
    let consent: Consent
    let nonce: String?
    let authTime: Date
}

/// `token_type_hint` of `/auth/revoke`.
public enum TokenTypeHint: String, Sendable {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"
}

/// What a revocation did, for the journal (the client always sees 200).
enum RevokeOutcome: Equatable {
    case revoked(personaID: String, groupID: String)
    case unknownToken
    case otherClient(String)
}

/// Why a persona change was refused.
public enum PersonaError: Error, Equatable, CustomStringConvertible {
    case alreadyExists(String)
    case notFound(String)
    case invalid(String)

    public var description: String {
        switch self {
        case let .alreadyExists(id): return "persona \"\(id)\" already exists"
        case let .notFound(id): return "persona \"\(id)\" does not exist"
        case let .invalid(message): return message
        }
    }

    static func check(_ persona: Persona) throws(PersonaError) {
        guard !persona.id.isEmpty else { throw .invalid("persona id must not be empty") }
        if let email = persona.email, !email.contains("@") { throw .invalid("\"\(email)\" is not an email address") }
        if persona.emailChoice == .hide && !persona.canHideEmail {
            throw .invalid(persona.managed ? "a managed account cannot hide its email" : "a persona without email has nothing to hide")
        }
    }
}
