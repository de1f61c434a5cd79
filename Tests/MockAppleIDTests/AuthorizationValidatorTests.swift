import MockAppleID
import Testing

/// `/auth/authorize` parameter rules (docs/apple-reference.md §1.1, §1.3), each on its own.
@Suite("authorization request rules")
struct AuthorizationValidatorTests {
    let validator = AuthorizationValidator(directory: try! AppleIDProvider(scenario: Fixtures.scenario()).directory)

    func error(_ overrides: [String: String?]) -> AppleError? {
        validator.result(Fixtures.authorizeParameters(overrides)).failure
    }

    @Test("a complete web request passes")
    func valid() throws {
        let request = try validator.result(Fixtures.authorizeParameters()).get()
        #expect(request.client.id == Fixtures.webClient)
        #expect(request.includesIDToken)
        #expect(request.responseMode == .formPost)
        #expect(request.scopes == [.name, .email])
        #expect(request.state == "st4te")
        #expect(request.nonce == "n0nce")
    }

    @Test("client_id: missing is invalid_request, unknown or wrong case is invalid_client")
    func clientID() {
        #expect(error(["client_id": nil])?.code == .invalidRequest)
        #expect(error(["client_id": "com.example.nope"])?.code == .invalidClient)
        #expect(error(["client_id": "COM.EXAMPLE.WEB"])?.code == .invalidClient)
    }

    @Test("client_id and redirect_uri are matched byte for byte: U+212A KELVIN SIGN, which Swift's String equality takes for K, is refused")
    func byteExact() {
        let kelvin = "\u{212A}"
        #expect(kelvin == "K")
        let validator = AuthorizationValidator(directory: Directory(
            teams: [Team(id: "TEAM000001", developerKeys: [])],
            groups: [AppGroup(primaryAppID: "com.example.Kiosk", teamID: "TEAM000001", bundleIDs: [],
                              servicesIDs: [ServicesID(id: "com.example.Kiosk.web", returnURLs: ["https://app.example.com/Kallback"])])]))
        func failure(_ clientID: String, _ redirectURI: String) -> AppleError? {
            validator.result(Fixtures.authorizeParameters(["client_id": clientID, "redirect_uri": redirectURI])).failure
        }
        #expect(failure("com.example.Kiosk.web", "https://app.example.com/Kallback") == nil)
        #expect(failure("com.example.\(kelvin)iosk.web", "https://app.example.com/Kallback")?.code == .invalidClient)
        #expect(failure("com.example.Kiosk.web", "https://app.example.com/\(kelvin)allback")?.pageMessage == "Invalid web redirect url.")
    }

    @Test("redirect_uri must be registered exactly", arguments: [
        nil, "http://localhost:3000/auth/apple/callback/", "http://localhost:3000/auth/apple/callback?x=1",
        "HTTP://localhost:3000/auth/apple/callback", "https://evil.example.com/auth/apple/callback",
    ] as [String?])
    func redirectURI(_ uri: String?) {
        let failure = error(["redirect_uri": uri])
        #expect(failure?.code == .invalidRequest)
        #expect(failure?.pageMessage == "Invalid web redirect url.")
    }

    @Test("a bundle id has no return URLs")
    func nativeClientOnWeb() {
        #expect(error(["client_id": "com.example.app"])?.pageMessage == "Invalid web redirect url.")
    }

    @Test("response_type is code or code id_token", arguments: ["id_token", "token", "", "code token"])
    func responseType(_ value: String) {
        #expect(error(["response_type": value])?.pageMessage == "Invalid response type")
    }

    @Test("response_type accepts either order of code and id_token")
    func responseTypeOrder() {
        #expect(error(["response_type": "id_token code"]) == nil)
    }

    @Test("name or email scope requires form_post", arguments: ["query", "fragment", nil] as [String?])
    func scopesForceFormPost(_ mode: String?) {
        let failure = error(["response_mode": mode, "response_type": "code"])
        #expect(failure?.pageMessage == "response_mode must be form_post when name or email scope is requested.")
    }

    @Test("web_message (Sign in with Apple JS in a popup) is accepted, with scopes too")
    func webMessage() throws {
        let request = try validator.result(Fixtures.authorizeParameters(["response_mode": "web_message"])).get()
        #expect(request.responseMode == .webMessage)
        #expect(request.scopes == [.name, .email])
        #expect(AuthorizationDelivery(redirectURI: request.redirectURI, mode: .webMessage, fields: FormParameters([])).redirectLocation == nil)
    }

    @Test("without scopes, query and fragment are allowed; query defaults for code")
    func noScopes() throws {
        let request = try validator.result(Fixtures.authorizeParameters(["scope": nil, "response_mode": nil, "response_type": "code"])).get()
        #expect(request.responseMode == .query)
        #expect(request.scopes.isEmpty)
        #expect(error(["scope": nil, "response_mode": "fragment", "response_type": "code"]) == nil)
    }

    @Test("code id_token cannot use query")
    func idTokenNotInQuery() {
        #expect(error(["scope": nil, "response_mode": "query"])?.pageMessage == "Invalid response mode")
    }

    @Test("unknown response_mode values are refused", arguments: ["webmessage", "post", "FORM_POST", "WEB_MESSAGE"])
    func unknownMode(_ mode: String) {
        #expect(error(["response_mode": mode])?.pageMessage == "Invalid response mode")
    }

    @Test("scopes other than name, email and openid are refused", arguments: ["profile", "name email profile", "offline_access"])
    func invalidScope(_ scope: String) {
        #expect(error(["scope": scope])?.pageMessage == "Invalid client scope")
    }

    @Test("openid is accepted and has no effect")
    func openidScope() throws {
        let request = try validator.result(Fixtures.authorizeParameters(["scope": "openid email name"])).get()
        #expect(request.scopes == [.name, .email])
    }

    @Test("a parameter given twice is invalid_request")
    func duplicates() {
        let parameters = FormParameters(Fixtures.authorizeParameters().pairs + [.init("state", "again")])
        #expect(validator.result(parameters).failure?.code == .invalidRequest)
    }

    @Test("PKCE: S256 or plain, well-formed challenge, no method without a challenge")
    func pkce() throws {
        let challenge = String(repeating: "a", count: 43)
        #expect(try validator.result(Fixtures.authorizeParameters(["code_challenge": challenge, "code_challenge_method": "S256"])).get()
            .codeChallenge == PKCEChallenge(challenge: challenge, method: .s256))
        #expect(try validator.result(Fixtures.authorizeParameters(["code_challenge": challenge])).get().codeChallenge?.method == .plain)
        #expect(error(["code_challenge": challenge, "code_challenge_method": "S512"])?.code == .invalidRequest)
        #expect(error(["code_challenge": "short"])?.code == .invalidRequest)
        #expect(error(["code_challenge_method": "S256"])?.code == .invalidRequest)
    }
}
