/// Applies Apple's `/auth/authorize` parameter rules (docs/apple-reference.md §1.1, §1.3) to raw parameters.
/// Pure: no state, no HTTP.
public struct AuthorizationValidator: Sendable {
    public let directory: Directory
    /// `settings.pkce`: with `ignore`, `code_challenge` and `code_challenge_method` are accepted unread.
    public let pkceHandling: ProviderSettings.PKCEHandling

    public init(directory: Directory, pkce: ProviderSettings.PKCEHandling = .enforce) {
        self.directory = directory
        pkceHandling = pkce
    }

    /// The parameters Apple's authorize endpoint reads; each may be given once.
    static let knownParameters = [
        "client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method",
    ]

    /// Validates `parameters` in the order Apple reports problems: duplicates, client, redirect URI,
    /// response type, scope, response mode, PKCE.
    public func validate(_ parameters: FormParameters) throws(AppleError) -> AuthorizationRequest {
        if let name = parameters.firstDuplicate(among: Self.knownParameters) {
            throw AppleError(.invalidRequest, description: "Invalid request.", reason: "parameter \(name) is given more than once")
        }
        let value = { (name: String) -> String? in parameters.pairs.first { $0.name == name }?.value }
        guard let clientID = value("client_id"), !clientID.isEmpty else {
            throw AppleError(.invalidRequest, description: "Invalid client id or web redirect url.", reason: "client_id is missing")
        }
        guard let client = directory.client(clientID) else {
            throw AppleError(.invalidClient, description: "Invalid client.",
                                 reason: "client_id \"\(clientID)\" is not a registered Services ID or bundle id (ids are case-sensitive)")
        }
        let redirectURI = value("redirect_uri") ?? ""
        guard client.returnURLs.contains(where: { $0.sameBytes(as: redirectURI) }) else {
            let registered = client.returnURLs.isEmpty ? "none (a bundle id has no return URLs; use a Services ID)"
                : client.returnURLs.joined(separator: ", ")
            throw AppleError(.invalidRequest, description: "Invalid web redirect url.",
                                 reason: redirectURI.isEmpty ? "redirect_uri is missing"
                                    : "redirect_uri \"\(redirectURI)\" is not registered for \(clientID); registered: \(registered)")
        }
        let includesIDToken = try responseType(value("response_type"))
        let scopes = try scopes(value("scope"))
        let mode = try responseMode(value("response_mode"), scopes: scopes, includesIDToken: includesIDToken)
        let challenge = pkceHandling == .ignore ? nil : try pkce(challenge: value("code_challenge"), method: value("code_challenge_method"))
        return AuthorizationRequest(
            client: client, redirectURI: redirectURI, includesIDToken: includesIDToken, responseMode: mode,
            scopes: scopes, state: value("state"), nonce: value("nonce"), codeChallenge: challenge,
            parameters: parameters)
    }

    private func responseType(_ text: String?) throws(AppleError) -> Bool {
        let parts = Set((text ?? "").split(separator: " ").map(String.init))
        switch parts {
        case ["code"]: return false
        case ["code", "id_token"]: return true
        default:
            throw AppleError(.invalidRequest, description: "Invalid response type",
                                 reason: "response_type is \(text.map { "\"\($0)\"" } ?? "missing"); Apple accepts \"code\" or \"code id_token\"")
        }
    }

    private func scopes(_ text: String?) throws(AppleError) -> [Scope] {
        var scopes: Set<Scope> = []
        for word in (text ?? "").split(separator: " ") where word != "openid" {
            guard let scope = Scope(rawValue: String(word)) else {
                throw AppleError(.invalidRequest, description: "Invalid client scope",
                                     reason: "scope \"\(word)\" is not supported; Apple knows name, email (and ignores openid)")
            }
            scopes.insert(scope)
        }
        return scopes.sorted()
    }

    private func responseMode(_ text: String?, scopes: [Scope], includesIDToken: Bool) throws(AppleError) -> ResponseMode {
        let mode: ResponseMode
        if let text {
            guard let parsed = ResponseMode(rawValue: text) else {
                throw AppleError(.invalidRequest, description: "Invalid response mode",
                                     reason: "response_mode \"\(text)\" is not one of query, fragment, form_post, web_message")
            }
            mode = parsed
        } else {
            mode = includesIDToken ? .fragment : .query
        }
        if !scopes.isEmpty && mode != .formPost && mode != .webMessage {
            throw AppleError(.invalidRequest, description: "response_mode must be form_post when name or email scope is requested.",
                                 reason: "scope asks for \(scopes.map(\.rawValue).joined(separator: " ")) but response_mode is \(mode.rawValue)\(text == nil ? " (the default)" : "")")
        }
        if includesIDToken && mode == .query {
            throw AppleError(.invalidRequest, description: "Invalid response mode",
                                 reason: "response_type code id_token cannot use response_mode query")
        }
        return mode
    }

    private func pkce(challenge: String?, method: String?) throws(AppleError) -> PKCEChallenge? {
        guard let challenge else {
            if method != nil {
                throw AppleError(.invalidRequest, description: "Invalid request.", reason: "code_challenge_method without code_challenge")
            }
            return nil
        }
        guard let parsed = PKCEChallenge.Method(rawValue: method ?? "plain") else {
            throw AppleError(.invalidRequest, description: "Invalid request.",
                                 reason: "code_challenge_method \"\(method ?? "")\" is not S256 or plain")
        }
        guard PKCEChallenge.isWellFormed(challenge) else {
            throw AppleError(.invalidRequest, description: "Invalid request.",
                                 reason: "code_challenge must be 43-128 characters of [A-Za-z0-9-._~]")
        }
        return PKCEChallenge(challenge: challenge, method: parsed)
    }
}
