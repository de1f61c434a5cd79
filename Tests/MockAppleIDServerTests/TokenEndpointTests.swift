import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import Testing

/// `/auth/token` and `/auth/revoke` through the router: Apple's headers, terse errors, and no
/// crash, hang or 500 on bad input.
@Suite("token and revoke endpoints")
struct TokenEndpointTests {
    /// Signs jane in through the consent form and returns the code.
    static func code(_ client: any TestClientProtocol) async throws -> String {
        let body = ByteBuffer(string: Harness.authorizeQuery + "&persona=jane&action=continue")
        return try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType, body: body) { response in
            try #require(Harness.field("code", in: response.text))
        }
    }

    static func exchangeBody(_ code: String) -> ByteBuffer {
        Harness.form(["client_id": Harness.webClient, "client_secret": Harness.secret(), "grant_type": "authorization_code",
                      "code": code, "redirect_uri": Harness.redirect])
    }

    @Test("a code exchange answers 200 with Apple's headers and TokenResponse; a replay gets invalid_grant")
    func exchange() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let code = try await Self.code(client)
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: Self.exchangeBody(code)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json;charset=UTF-8")
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[.init("Pragma")!] == "no-cache")
                #expect(response.headers[.server] == "Apple")
                #expect(response.text.hasPrefix(#"{"access_token":"a"#))
                #expect(response.text.contains(#""token_type":"Bearer","expires_in":3600,"refresh_token":"r"#))
            }
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: Self.exchangeBody(code)) { response in
                #expect(response.status == .badRequest)
                #expect(response.text == #"{"error":"invalid_grant","error_description":"The code has already been used."}"#)
            }
        }
    }

    @Test("client-secret failures are a bare invalid_client; the reason goes to the journal", arguments: [
        "", "not-a-jwt", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", String(repeating: "x", count: 5000),
    ])
    func badSecrets(_ secret: String) async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            let body = Harness.form(["client_id": Harness.webClient, "client_secret": secret, "grant_type": "authorization_code", "code": "c"])
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: body) { response in
                #expect(response.status == .badRequest)
                #expect(response.text == #"{"error":"invalid_client"}"#)
            }
        }
        let entry = try #require(provider.journal.entries().last)
        #expect(entry.error == "invalid_client")
        #expect(entry.reason.contains("client_secret"))
    }

    @Test("malformed requests get invalid_request, never a 500", arguments: [
        ("application/json", #"{"client_id":"com.example.web"}"#),
        (nil, "client_id=com.example.web"),
        ("application/x-www-form-urlencodedXYZ", "client_id=com.example.web"),
        ("application/x-www-form-urlencoded x", "client_id=com.example.web"),
        ("x application/x-www-form-urlencoded", "client_id=com.example.web"),
        ("", "client_id=com.example.web"),
        ("application/x-www-form-urlencoded", "client_id=%zz"),
        ("application/x-www-form-urlencoded", "client_id=a&client_id=b"),
        ("application/x-www-form-urlencoded", String(repeating: "a", count: 70_000)),
    ] as [(String?, String)])
    func malformed(_ contentType: String?, _ body: String) async throws {
        let headers: HTTPFields = contentType.map { [.contentType: $0] } ?? [:]
        try await Harness.withRouter(try Harness.provider()) { client in
            for endpoint in ["/auth/token", "/auth/revoke"] {
                try await client.execute(uri: endpoint, method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(endpoint)")
                    #expect(response.text == #"{"error":"invalid_request"}"#, "\(endpoint)")
                }
            }
        }
    }

    @Test("the form's Content-Type is matched without ASCII case, trimmed of spaces and tabs, parameters ignored",
          arguments: ["Application/X-WWW-Form-URLEncoded", "application/x-www-form-urlencoded \t; charset=UTF-8", "application/x-www-form-urlencoded;"])
    func formContentType(_ contentType: String) async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let code = try await Self.code(client)
            try await client.execute(uri: "/auth/token", method: .post, headers: [.contentType: contentType], body: Self.exchangeBody(code)) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("a body that is not UTF-8 is invalid_request")
    func binaryBody() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(bytes: [0xff, 0xfe, 0x3d, 0x00])) { response in
                #expect(response.text == #"{"error":"invalid_request"}"#)
            }
        }
    }

    @Test("revoke: 200 with an empty body for a real token and for an unknown one; empty form is invalid_client")
    func revoke() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let code = try await Self.code(client)
            let refresh = try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: Self.exchangeBody(code)) {
                try #require($0.json?["refresh_token"]?.stringValue)
            }
            for token in [refresh, refresh, "r-unknown"] {
                let body = Harness.form(["client_id": Harness.webClient, "client_secret": Harness.secret(), "token": token,
                                         "token_type_hint": "refresh_token"])
                try await client.execute(uri: "/auth/revoke", method: .post, headers: Harness.formType, body: body) { response in
                    #expect(response.status == .ok)
                    #expect(response.body.readableBytes == 0)
                }
            }
            try await client.execute(uri: "/auth/revoke", method: .post, headers: Harness.formType, body: ByteBuffer()) { response in
                #expect(response.text == #"{"error":"invalid_client"}"#)
            }
            let refreshBody = Harness.form(["client_id": Harness.webClient, "client_secret": Harness.secret(), "grant_type": "refresh_token",
                                            "refresh_token": refresh])
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: refreshBody) { response in
                #expect(response.json?["error"] == .string("invalid_grant"))
            }
        }
    }
}
