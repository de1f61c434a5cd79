/// A `/auth/authorize` request that passed every parameter rule of docs/apple-reference.md §1.1.
public struct AuthorizationRequest: Sendable, Equatable {
    public let client: Client
    public let redirectURI: String
    /// Whether an identity token comes back with the code (`code id_token`).
    public let includesIDToken: Bool
    public let responseMode: ResponseMode
    /// The `name`/`email` scopes asked for, in Apple's order (`openid` is accepted and has no effect).
    public let scopes: [Scope]
    public let state: String?
    public let nonce: String?
    public let codeChallenge: PKCEChallenge?
    /// The request's own parameters, carried through the consent form unchanged.
    public let parameters: FormParameters

    public init(
        client: Client, redirectURI: String, includesIDToken: Bool, responseMode: ResponseMode, scopes: [Scope],
        state: String?, nonce: String?, codeChallenge: PKCEChallenge?, parameters: FormParameters
    ) {
        self.client = client
        self.redirectURI = redirectURI
        self.includesIDToken = includesIDToken
        self.responseMode = responseMode
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.parameters = parameters
    }
}

/// How the result reaches the redirect URI: in its query or fragment, by a form posted to it, or, for
/// the JS SDK's popup (`web_message`), by a message the popup posts to the page that opened it, which
/// must have the redirect URI's origin.
public enum ResponseMode: String, Sendable, CaseIterable {
    case query, fragment
    case formPost = "form_post"
    case webMessage = "web_message"
}

/// The user-data scopes Sign in with Apple knows.
public enum Scope: String, Sendable, CaseIterable, Comparable, Codable {
    case name, email

    public static func < (lhs: Scope, rhs: Scope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A PKCE `code_challenge` with its method (RFC 7636).
public struct PKCEChallenge: Sendable, Equatable, Codable {
    public enum Method: String, Sendable, CaseIterable, Codable {
        case s256 = "S256"
        case plain
    }

    public let challenge: String
    public let method: Method

    public init(challenge: String, method: Method) {
        self.challenge = challenge
        self.method = method
    }

    /// Whether `verifier` answers this challenge.
    public func isAnswered(by verifier: String) -> Bool {
        switch method {
        case .plain: return verifier.sameBytes(as: challenge)
        case .s256: return PKCEChallenge.s256(of: verifier) == challenge
        }
    }
}
