import Foundation

extension AppleIDProvider {
    /// Fields `/auth/token` and `/auth/revoke` read; each may be given once.
    static let tokenFields = [
        "client_id", "client_secret", "grant_type", "code", "redirect_uri", "refresh_token", "code_verifier",
        "scope", "token", "token_type_hint", "sub", "target", "transfer_sub",
    ]

    /// `POST /auth/token` on a decoded form body: Apple's TokenResponse, or Apple's error.
    public func token(_ form: FormParameters, origin: RequestOrigin = .swift) throws(AppleError) -> JSONValue {
        try answering(.token, origin: origin, clientID: form.first("client_id")) { (now, events) throws(AppleError) in
            let client = try authenticate(form, now: now)
            var reshaped = false
            if world.hasQueuedFaults {
                let fault = world.commit(at: now) { state, events in
                    state.takeFault(.token, clientID: client.id, transport: false, events: &events)
                }.value(addingEventsTo: &events)
                if let fault, case let .tokenError(code) = fault.kind {
                    throw AppleError(code, reason: "fault #\(fault.id) answers \(code.rawValue) whatever the request")
                }
                reshaped = fault?.kind == .tokenResponseShape
            }
            guard let grantType = try nonEmpty(form, "grant_type") else {
                throw AppleError(.invalidRequest, reason: "grant_type is missing")
            }
            let answer: JSONValue
            switch grantType {
            case "authorization_code": answer = try exchangeCode(form, client: client, now: now, events: &events)
            case "refresh_token": answer = try refresh(form, client: client, now: now, events: &events)
            case "client_credentials": answer = try teamAccessToken(form, client: client, now: now, events: &events)
            default:
                throw AppleError(.unsupportedGrantType,
                                 reason: "grant_type \"\(grantType)\" is not supported (authorization_code, refresh_token, client_credentials)")
            }
            return reshaped ? answer.setting("token_type", .string("bearer")).setting("expires_in", nil) : answer
        }
    }

    /// Checks `client_id` and `client_secret` (docs/apple-reference.md §2.2); any failure is `invalid_client`.
    func authenticate(_ form: FormParameters, now: Date) throws(AppleError) -> Client {
        if let duplicate = form.firstDuplicate(among: Self.tokenFields) {
            throw AppleError(.invalidRequest, reason: "parameter \(duplicate) is given more than once")
        }
        guard let clientID = try nonEmpty(form, "client_id") else {
            throw AppleError(.invalidClient, reason: "client_id is missing")
        }
        let registered = world.read { state -> (Client, Team)? in
            guard let client = state.directory.client(clientID), let team = state.directory.team(of: client) else { return nil }
            return (client, team)
        }
        guard let (client, team) = registered else {
            throw AppleError(.invalidClient, reason: "client_id \"\(clientID)\" is not registered (ids are case-sensitive)")
        }
        guard let secret = try nonEmpty(form, "client_secret") else {
            throw AppleError(.invalidClient, reason: "client_secret is missing")
        }
        if case let .failure(failure) = secretVerifier.verify(secret, client: client, team: team, now: now) {
            throw AppleError(.invalidClient, reason: failure.description)
        }
        return client
    }

    func nonEmpty(_ form: FormParameters, _ name: String) throws(AppleError) -> String? {
        do { return try form.nonEmpty(name) } catch { throw AppleError(.invalidRequest, reason: error.description) }
    }

    private func exchangeCode(_ form: FormParameters, client: Client, now: Date, events: inout [DomainEvent]) throws(AppleError) -> JSONValue {
        guard let code = try nonEmpty(form, "code") else { throw AppleError(.invalidRequest, reason: "code is missing") }
        // With `settings.pkce: ignore` the code carries no challenge, and a verifier is not read.
        let verifier = try nonEmpty(form, "code_verifier")
        let exchange = CodeExchange(
            code: code, clientID: client.id, redirectURI: try nonEmpty(form, "redirect_uri"),
            codeVerifier: settings.pkce == .enforce ? verifier : nil)
        let tokens = IssuedTokens(
            accessToken: AppleIdentifiers.opaqueToken(prefix: "a"), refreshToken: AppleIdentifiers.opaqueToken(prefix: "r"))
        let (grant, fault) = try world.commit(at: now) { (state, events) throws(AppleError) in
            let grant = try state.redeem(exchange, now: now, limits: grantLimits, tokens: tokens, events: &events)
            return (grant, state.takeFault(.idToken, clientID: client.id, transport: false, events: &events))
        }.value(addingEventsTo: &events)
        let status = settings.claims.realUserStatusInCodeExchange ? grant.realUserStatus : nil
        let identity = IdentityResolver.identity(of: grant.persona, relayAddress: grant.relayAddress, subject: grant.subject,
                                                 consent: grant.consent, client: client, realUserStatus: status,
                                                 transferSubject: grant.transferSubject)
        let idToken = try signIdentityToken(identity, grant: .codeExchange(accessToken: tokens.accessToken, nonce: grant.nonce, authTime: grant.authTime),
                                            now: now, fault: fault?.identityTokenFault)
        return tokenResponse(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, idToken: idToken)
    }

    private func refresh(_ form: FormParameters, client: Client, now: Date, events: inout [DomainEvent]) throws(AppleError) -> JSONValue {
        guard let refreshToken = try nonEmpty(form, "refresh_token") else {
            throw AppleError(.invalidRequest, reason: "refresh_token is missing")
        }
        let accessToken = AppleIdentifiers.opaqueToken(prefix: "a")
        let withIDToken = settings.claims.refreshReturnsIDToken
        let (grant, fault) = try world.commit(at: now) { (state, events) throws(AppleError) in
            let grant = try state.refresh(refreshToken, clientID: client.id, accessToken: accessToken, now: now, limits: grantLimits,
                                          afterConsentRevoked: settings.errors.refreshAfterConsentRevoked, events: &events)
            return (grant, withIDToken ? state.takeFault(.idToken, clientID: client.id, transport: false, events: &events) : nil)
        }.value(addingEventsTo: &events)
        var idToken: String?
        if withIDToken {
            let identity = IdentityResolver.identity(of: grant.persona, relayAddress: grant.relayAddress, subject: grant.subject,
                                                     consent: grant.consent, client: client, transferSubject: grant.transferSubject)
            idToken = try signIdentityToken(identity, grant: .refresh(accessToken: accessToken), now: now, fault: fault?.identityTokenFault)
        }
        return tokenResponse(accessToken: accessToken, refreshToken: nil, idToken: idToken)
    }

    /// Apple's TokenResponse, in Apple's field order.
    func tokenResponse(accessToken: String, refreshToken: String?, idToken: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("access_token", .string(accessToken)),
            ("token_type", .string("Bearer")),
            ("expires_in", .int(TimeRange.wholeSeconds(settings.accessTokenLifetime))),
        ]
        if let refreshToken { members.append(("refresh_token", .string(refreshToken))) }
        if let idToken { members.append(("id_token", .string(idToken))) }
        return .object(members)
    }

    /// `POST /auth/revoke` (docs/apple-reference.md §3): returns for revoked and for unknown tokens alike (Apple's 200); only
    /// bad client authentication or a malformed request throws.
    public func revoke(_ form: FormParameters, origin: RequestOrigin = .swift) throws(AppleError) {
        try answering(.revoke, origin: origin, clientID: form.first("client_id")) { (now, events) throws(AppleError) in
            let client = try authenticate(form, now: now)
            guard let token = try nonEmpty(form, "token") else { throw AppleError(.invalidRequest, reason: "token is missing") }
            var hint: TokenTypeHint?
            if let text = try nonEmpty(form, "token_type_hint") {
                guard let parsed = TokenTypeHint(rawValue: text.lowercased()) else {
                    throw AppleError(.invalidRequest, reason: "token_type_hint \"\(text)\" is not refresh_token or access_token")
                }
                hint = parsed
            }
            let mismatch = settings.errors.revokeHintMismatch
            try world.commit(at: now) { (state, events) throws(AppleError) in
                try state.revoke(token, clientID: client.id, hint: hint, refusingMismatch: mismatch == .invalidRequest,
                                 ending: settings.refreshTokenRevocation, now: now, events: &events)
            }.value(addingEventsTo: &events)
        }
    }
}
