import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import Testing

/// Every Apple endpoint and its errors, through the router in memory.
@Suite("Apple endpoints")
struct AppleEndpointsTests {
    @Test("/auth/keys: three RSA keys in order, Apple's field order")
    func keys() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/auth/keys", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json;charset=UTF-8")
                #expect(response.text.hasPrefix(#"{"keys":[{"kty":"RSA","kid":"mRS1a8XkPq","use":"sig","alg":"RS256","n":""#))
                #expect(response.text.matches(of: /"kid"/).count == 3)
            }
        }
    }

    @Test("discovery: Apple's issuer and fields, endpoints at the request's host or the configured base URL")
    func discovery() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/.well-known/openid-configuration", method: .get) { response in
                let json = try #require(response.json)
                #expect(json["issuer"] == .string("https://appleid.apple.com"))
                #expect(json["token_endpoint"]?.stringValue?.hasSuffix("/auth/token") == true)
                #expect(json["userinfo_endpoint"] == nil)
                #expect(json["token_endpoint_auth_methods_supported"] == .array([.string("client_secret_post")]))
            }
        }
        let configured = ServerConfiguration(publicBaseURL: "https://appleid.test/tenant-a/")
        try await Harness.withRouter(try Harness.provider(), configuration: configured) { client in
            try await client.execute(uri: "/.well-known/openid-configuration", method: .get) { response in
                #expect(response.json?["jwks_uri"] == .string("https://appleid.test/tenant-a/auth/keys"))
            }
        }
    }

    @Test("authorize errors render on the server's page with 400, or JSON when asked")
    func authorizeErrors() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let bad = Harness.query(["client_id": Harness.webClient, "redirect_uri": "https://evil.example.com/cb", "response_type": "code"])
            try await client.execute(uri: "/auth/authorize?" + bad, method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.location] == nil)
                #expect(response.text.contains("Invalid web redirect url."))
            }
            try await client.execute(uri: "/auth/authorize?" + bad, method: .get, headers: [.accept: "application/json"]) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["error"] == .string("invalid_request"))
                #expect(response.json?["error_description"] == .string("Invalid web redirect url."))
            }
            try await client.execute(uri: "/auth/authorize?client_id=%zz", method: .get, headers: [.accept: "application/json"]) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["error"] == .string("invalid_request"))
            }
        }
    }

    @Test("authorize shows the consent page with every persona; POST works like GET; duplicates across query and body fail")
    func consentPage() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/auth/authorize?" + Harness.authorizeQuery, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html;charset=UTF-8")
                for persona in ["jane", "john", "noemail", "pat"] { #expect(response.text.contains("value=\"\(persona)\"")) }
                #expect(response.text.contains(#"action="authorize/consent""#))
                #expect(Harness.field("nonce", in: response.text) == "n0nce")
            }
            try await client.execute(uri: "/auth/authorize", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(string: Harness.authorizeQuery)) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("value=\"jane\""))
            }
            try await client.execute(uri: "/auth/authorize?state=a", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(string: Harness.authorizeQuery)) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/auth/authorize", method: .post, headers: [.contentType: "application/json", .accept: "application/json"],
                                     body: ByteBuffer(string: #"{"client_id":"com.example.web"}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["error"] == .string("invalid_request"))
            }
        }
    }

    @Test("consent Continue delivers by form_post: an auto-submitting page with state, code, id_token, user (an empty name part keeps the persona's)")
    func consentContinue() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let body = ByteBuffer(string: Harness.authorizeQuery + "&persona=jane&email_choice=&first_name=Janie&last_name=&action=continue")
            try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType, body: body) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains(#"<form method="post" action="http://localhost:3000/auth/apple/callback">"#))
                #expect(response.text.contains("document.forms[0].submit()"))
                #expect(Harness.hiddenFields(response.text).map(\.0) == ["state", "code", "id_token", "user"])
                #expect(Harness.field("user", in: response.text) == #"{"name":{"firstName":"Janie","lastName":"Appleseed"},"email":"jane.appleseed@example.com"}"#)
            }
            try await client.execute(uri: "/auth/authorize?" + Harness.authorizeQuery, method: .get) { response in
                #expect(response.text.contains("(jane: jane.appleseed@example.com, returning, shares email)"))
                #expect(response.text.contains("(noemail: no email, first sign-in)"))
            }
        }
    }

    @Test("consent Cancel delivers user_cancelled_authorize; a query-mode request redirects")
    func consentCancel() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let query = Harness.query(["client_id": Harness.webClient, "redirect_uri": Harness.redirect, "response_type": "code", "state": "s"])
            try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(string: query + "&action=cancel")) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == Harness.redirect + "?state=s&error=user_cancelled_authorize")
            }
        }
    }

    @Test("consent form errors: no persona, unknown persona, bad action, bad email_choice, a field twice, wrong content type")
    func consentErrors() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            for extra in ["&action=continue", "&persona=ghost&action=continue", "&persona=jane&action=maybe",
                          "&persona=jane&email_choice=x&action=continue", "&persona=jane&persona=john&action=continue"] {
                try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType,
                                         body: ByteBuffer(string: Harness.authorizeQuery + extra)) { response in
                    #expect(response.status == .badRequest, "\(extra)")
                }
            }
            try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("auto-approve: query and fragment redirect at once")
    func autoApproveRedirects() async throws {
        let provider = try Harness.provider { $0.autoApprove = AutoApprove(persona: "jane") }
        try await Harness.withRouter(provider) { client in
            let query = Harness.query(["client_id": Harness.webClient, "redirect_uri": Harness.redirect, "response_type": "code", "state": "s"])
            try await client.execute(uri: "/auth/authorize?" + query, method: .get) { response in
                #expect(response.status == .found)
                let location = try #require(response.headers[.location])
                #expect(location.wholeMatch(of: /http:\/\/localhost:3000\/auth\/apple\/callback\?state=s&code=c[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
            }
            let fragment = Harness.query(["client_id": Harness.webClient, "redirect_uri": Harness.redirect, "response_type": "code id_token"])
            try await client.execute(uri: "/auth/authorize?" + fragment, method: .get) { response in
                #expect(response.headers[.location]?.contains("#code=") == true)
                #expect(response.headers[.location]?.contains("&id_token=ey") == true)
            }
        }
    }
}
