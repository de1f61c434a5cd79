import Foundation
import MockAppleID

/// Shared test data: the built-in scenario on a manual clock, and client secrets signed with the
/// shipped developer key.
enum Fixtures {
    /// A fixed instant every core test starts at.
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let webClient = "com.example.web"
    static let redirect = "http://localhost:3000/auth/apple/callback"

    /// The repository's top folder.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func file(_ relativePath: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func scenario(_ change: (inout Scenario) -> Void = { _ in }) throws -> Scenario {
        var scenario = try BuiltInScenario.load()
        change(&scenario)
        return scenario
    }

    /// A provider over the built-in scenario whose clock stands at ``start``.
    static func provider(_ change: (inout Scenario) -> Void = { _ in }) throws -> AppleIDProvider {
        try AppleIDProvider(scenario: scenario(change), clock: .manual(at: start))
    }

    static let signer = try! ClientSecret(teamID: "MOCKTEAM01", keyID: "MOCKKEY001", privateKeyPEM: file("Keys/AuthKey_MOCKKEY001.p8"))

    static func secret(for clientID: String = webClient, at date: Date = start, lifetime: TimeInterval = 3600) -> String {
        try! signer.make(clientID: clientID, issuedAt: date, lifetime: lifetime)
    }

    static func form(_ pairs: KeyValuePairs<String, String>) -> FormParameters {
        FormParameters(pairs.map { FormParameters.Pair($0.key, $0.value) })
    }

    /// A valid web authorization request (form_post with name and email), with overrides.
    static func authorizeParameters(_ overrides: [String: String?] = [:]) -> FormParameters {
        var values: [(String, String?)] = [
            ("client_id", webClient), ("redirect_uri", redirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", "name email"), ("state", "st4te"), ("nonce", "n0nce"),
        ]
        for (key, value) in overrides {
            if let index = values.firstIndex(where: { $0.0 == key }) { values[index].1 = value } else { values.append((key, value)) }
        }
        return FormParameters(values.compactMap { pair in pair.1.map { FormParameters.Pair(pair.0, $0) } })
    }
}

extension AppleIDProvider {
    /// Signs in through the consent path and returns the delivery.
    func signIn(_ persona: String, parameters: FormParameters = Fixtures.authorizeParameters(),
                emailChoice: EmailChoice? = nil, name: PersonName? = nil) throws -> AuthorizationDelivery {
        try completeAuthorization(parameters, decision: .approve(personaID: persona, emailChoice: emailChoice, name: name))
    }

    /// `token` with its outcome as a value.
    func tokenResult(_ form: FormParameters) -> Result<JSONValue, AppleError> {
        Result { () throws(AppleError) in try token(form) }
    }

    /// `revoke` with its outcome as a value: on success, the journal's reason for the request.
    func revokeResult(_ form: FormParameters) -> Result<String, AppleError> {
        Result { () throws(AppleError) in
            try revoke(form)
            return journal.entries().last?.reason ?? ""
        }
    }

    /// `completeAuthorization` with its outcome as a value.
    func completeResult(_ parameters: FormParameters, decision: ConsentDecision) -> Result<AuthorizationDelivery, AppleError> {
        Result { () throws(AppleError) in try completeAuthorization(parameters, decision: decision) }
    }

    /// Exchanges a code as the web client.
    func exchange(_ code: String, clientID: String = Fixtures.webClient, redirectURI: String? = Fixtures.redirect,
                  verifier: String? = nil) -> Result<JSONValue, AppleError> {
        var pairs = [FormParameters.Pair("client_id", clientID), .init("client_secret", Fixtures.secret(for: clientID, at: clock.now)),
                     .init("grant_type", "authorization_code"), .init("code", code)]
        if let redirectURI { pairs.append(.init("redirect_uri", redirectURI)) }
        if let verifier { pairs.append(.init("code_verifier", verifier)) }
        return tokenResult(FormParameters(pairs))
    }
}

extension AuthorizationValidator {
    /// `validate` with its outcome as a value.
    func result(_ parameters: FormParameters) -> Result<AuthorizationRequest, AppleError> {
        Result { () throws(AppleError) in try validate(parameters) }
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}

/// Decodes a compact JWS payload without verifying it (tests verify signatures separately).
func claims(of token: String) throws -> JSONValue {
    try CompactJWS(compact: token).payload
}
