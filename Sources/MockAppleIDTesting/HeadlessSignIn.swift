import MockAppleID

/// What a complete sign-in produced: the authorization response and the code exchange.
public struct SignInResult: Sendable {
    /// The authorization code as delivered to the redirect URI (already exchanged when `tokens` is set).
    public let code: String
    public let state: String?
    /// The `user` JSON string, present only on a first consent to the app group.
    public let user: String?
    /// The identity token delivered with the code (`response_type=code id_token`).
    public let authorizationIDToken: String?
    /// The token endpoint's answer; nil when the sign-in was asked not to exchange the code.
    public let tokens: TokenSet?
}

/// `/auth/token`'s answer to a code exchange.
public struct TokenSet: Sendable {
    public let accessToken: String
    public let refreshToken: String
    public let idToken: String
    public let expiresIn: Int
}

/// Why a headless sign-in failed.
public struct SignInError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case rejected(AppleError)
        case exchangeFailed(AppleError)
        case unexpectedResponse(String)
    }

    /// Which of them.
    let base: Base

    public static func rejected(_ error: AppleError) -> Self { Self(base: .rejected(error)) }
    public static func exchangeFailed(_ error: AppleError) -> Self { Self(base: .exchangeFailed(error)) }
    public static func unexpectedResponse(_ detail: String) -> Self { Self(base: .unexpectedResponse(detail)) }

    /// Apple's error that refused the sign-in or its exchange, if that is what happened.
    public var appleError: AppleError? {
        switch base {
        case let .rejected(error), let .exchangeFailed(error): return error
        case .unexpectedResponse: return nil
        }
    }

    public var description: String {
        switch base {
        case let .rejected(error): return "authorize refused: \(error.code.rawValue) \(error.pageMessage) (\(error.reason))"
        case let .exchangeFailed(error): return "code exchange failed: \(error.code.rawValue) (\(error.reason))"
        case let .unexpectedResponse(detail): return "unexpected response: \(detail)"
        }
    }
}

extension MockAppleIDTestServer {
    /// Signs `persona` in to `clientID` without a browser, through the same provider the server's
    /// endpoints use, and (unless `exchange` is false) exchanges the code as the relying party would.
    public func signIn(
        persona: String, clientID: String = "com.example.web",
        redirectURI: String = "http://localhost:3000/auth/apple/callback",
        scopes: [Scope] = [.name, .email], nonce: String? = nil, state: String? = "state",
        emailChoice: EmailChoice? = nil, name: PersonName? = nil, exchange: Bool = true
    ) async throws -> SignInResult {
        var pairs: [FormParameters.Pair] = [
            .init("client_id", clientID), .init("redirect_uri", redirectURI), .init("response_type", "code id_token"),
            .init("response_mode", "form_post"),
        ]
        if !scopes.isEmpty { pairs.append(.init("scope", scopes.map(\.rawValue).joined(separator: " "))) }
        if let nonce { pairs.append(.init("nonce", nonce)) }
        if let state { pairs.append(.init("state", state)) }
        let decision = ConsentDecision.approve(personaID: persona, emailChoice: emailChoice, name: name)
        let delivery: AuthorizationDelivery
        do { delivery = try provider.completeAuthorization(FormParameters(pairs), decision: decision) } catch {
            throw SignInError.rejected(error)
        }
        guard let code = delivery["code"] else { throw SignInError.unexpectedResponse("no code in \(delivery.fields.urlEncoded)") }
        var tokens: TokenSet?
        if exchange { tokens = try await exchangeCode(code, clientID: clientID, redirectURI: redirectURI) }
        return SignInResult(code: code, state: delivery["state"], user: delivery["user"],
                            authorizationIDToken: delivery["id_token"], tokens: tokens)
    }

    /// Exchanges `code` at the provider's token endpoint logic with a fresh client secret.
    public func exchangeCode(_ code: String, clientID: String, redirectURI: String?) async throws -> TokenSet {
        var pairs: [FormParameters.Pair] = [
            .init("client_id", clientID), .init("client_secret", try secret(for: clientID)),
            .init("grant_type", "authorization_code"), .init("code", code),
        ]
        if let redirectURI { pairs.append(.init("redirect_uri", redirectURI)) }
        let body: JSONValue
        do { body = try provider.token(FormParameters(pairs)) } catch { throw SignInError.exchangeFailed(error) }
        guard let access = body["access_token"]?.stringValue, let refresh = body["refresh_token"]?.stringValue,
              let idToken = body["id_token"]?.stringValue, let expires = body["expires_in"]?.int64Value
        else { throw SignInError.unexpectedResponse(body.serialized) }
        return TokenSet(accessToken: access, refreshToken: refresh, idToken: idToken, expiresIn: Int(truncatingIfNeeded: expires))
    }
}
