import Foundation

/// A successful Apple-endpoint answer: the JSON body and a summary for the journal.
public struct EndpointSuccess: Sendable {
    public let body: JSONValue
    public let summary: String
}

extension AppleIDProvider {
    /// Fields `/auth/token` and `/auth/revoke` read; each may be given once.
    static let tokenFields = [
        "client_id", "client_secret", "grant_type", "code", "redirect_uri", "refresh_token", "code_verifier",
        "scope", "token", "token_type_hint",
    ]

    /// `POST /auth/token` on a decoded form body (apple-api.md §2).
    public func token(_ form: FormParameters) async -> Result<EndpointSuccess, AppleError> {
        do throws(AppleError) {
            let client = try authenticate(form)
            guard let grantType = try nonEmpty(form, "grant_type") else {
                throw AppleError(.invalidRequest, reason: "grant_type is missing")
            }
            switch grantType {
            case "authorization_code": return .success(try await exchangeCode(form, client: client))
            case "refresh_token": return .success(try await refresh(form, client: client))
            default:
                throw AppleError(.unsupportedGrantType, reason: "grant_type \"\(grantType)\" is not supported (authorization_code, refresh_token)")
            }
        } catch {
            return .failure(error)
        }
    }

    /// Checks `client_id` and `client_secret` (§2.2); any failure is `invalid_client`.
    func authenticate(_ form: FormParameters) throws(AppleError) -> Client {
        if let duplicate = form.firstDuplicate(among: Self.tokenFields) {
            throw AppleError(.invalidRequest, reason: "parameter \(duplicate) is given more than once")
        }
        guard let clientID = try nonEmpty(form, "client_id") else {
            throw AppleError(.invalidClient, reason: "client_id is missing")
        }
        guard let client = directory.client(clientID), let team = directory.team(of: client) else {
            throw AppleError(.invalidClient, reason: "client_id \"\(clientID)\" is not registered (ids are case-sensitive)")
        }
        guard let secret = try nonEmpty(form, "client_secret") else {
            throw AppleError(.invalidClient, reason: "client_secret is missing")
        }
        if case let .failure(failure) = secretVerifier.verify(secret, client: client, team: team, now: clock.now) {
            throw AppleError(.invalidClient, reason: failure.description)
        }
        return client
    }

    func nonEmpty(_ form: FormParameters, _ name: String) throws(AppleError) -> String? {
        do { return try form.nonEmpty(name) } catch { throw AppleError(.invalidRequest, reason: error.description) }
    }

    private func exchangeCode(_ form: FormParameters, client: Client) async throws(AppleError) -> EndpointSuccess {
        guard let code = try nonEmpty(form, "code") else { throw AppleError(.invalidRequest, reason: "code is missing") }
        let exchange = CodeExchange(
            code: code, clientID: client.id, redirectURI: try nonEmpty(form, "redirect_uri"),
            codeVerifier: try nonEmpty(form, "code_verifier"))
        let tokens = IssuedTokens(
            accessToken: AppleIdentifiers.opaqueToken(prefix: "a"), refreshToken: AppleIdentifiers.opaqueToken(prefix: "r"))
        let grant = try await state.redeem(exchange, now: clock.now, limits: grantLimits, tokens: tokens).get()
        let identity = IdentityResolver.identity(of: grant.persona, consent: grant.consent, client: client)
        let idToken = try sign(identity, .codeExchange(accessToken: tokens.accessToken, nonce: grant.nonce, authTime: grant.authTime))
        let body = tokenResponse(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, idToken: idToken)
        return EndpointSuccess(body: body, summary: "code exchanged for persona \(grant.persona.id)")
    }

    private func refresh(_ form: FormParameters, client: Client) async throws(AppleError) -> EndpointSuccess {
        guard let refreshToken = try nonEmpty(form, "refresh_token") else {
            throw AppleError(.invalidRequest, reason: "refresh_token is missing")
        }
        let accessToken = AppleIdentifiers.opaqueToken(prefix: "a")
        let grant = try await state.refresh(refreshToken, clientID: client.id, accessToken: accessToken, now: clock.now, limits: grantLimits).get()
        var idToken: String?
        if settings.claims.refreshReturnsIDToken {
            let identity = IdentityResolver.identity(of: grant.persona, consent: grant.consent, client: client)
            idToken = try sign(identity, .refresh(accessToken: accessToken))
        }
        let body = tokenResponse(accessToken: accessToken, refreshToken: nil, idToken: idToken)
        return EndpointSuccess(body: body, summary: "refresh for persona \(grant.persona.id)")
    }

    private func sign(_ identity: SignedInIdentity, _ grant: IdentityTokenClaims.Grant) throws(AppleError) -> String {
        do { return try signIdentityToken(identity, grant: grant) } catch {
            throw AppleError(.invalidRequest, reason: "signing the identity token failed: \(error)")
        }
    }

    /// Apple's TokenResponse, in Apple's field order.
    private func tokenResponse(accessToken: String, refreshToken: String?, idToken: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("access_token", .string(accessToken)),
            ("token_type", .string("Bearer")),
            ("expires_in", .int(Int64(settings.accessTokenLifetime))),
        ]
        if let refreshToken { members.append(("refresh_token", .string(refreshToken))) }
        if let idToken { members.append(("id_token", .string(idToken))) }
        return .object(members)
    }

    /// `POST /auth/revoke` (§3): 200 for revoked and for unknown tokens alike; only bad client
    /// authentication or a malformed request fails.
    public func revoke(_ form: FormParameters) async -> Result<String, AppleError> {
        do throws(AppleError) {
            let client = try authenticate(form)
            guard let token = try nonEmpty(form, "token") else { throw AppleError(.invalidRequest, reason: "token is missing") }
            var hint: TokenTypeHint?
            if let text = try nonEmpty(form, "token_type_hint") {
                guard let parsed = TokenTypeHint(rawValue: text.lowercased()) else {
                    throw AppleError(.invalidRequest, reason: "token_type_hint \"\(text)\" is not refresh_token or access_token")
                }
                hint = parsed
            }
            switch await state.revoke(token, clientID: client.id, hint: hint, now: clock.now) {
            case let .revoked(personaID, groupID):
                return .success("revoked persona \(personaID)'s grant to app group \(groupID)")
            case .unknownToken:
                return .success("token unknown or already revoked; nothing to do (Apple answers 200 all the same)")
            case let .otherClient(owner):
                return .success("token belongs to \(owner), not \(client.id); nothing revoked (Apple answers 200 all the same)")
            }
        } catch {
            return .failure(error)
        }
    }
}
