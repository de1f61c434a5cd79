import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import Testing

/// The HTML pages come from Mustache templates that escape what they are given: hostile text in a
/// request reaches each page only as text.
@Suite("page templates")
struct PageTemplatesTests {
    static let hostile = #""><script>alert(1)</script>"#
    static let escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"

    @Test("the consent page carries a hostile state as an escaped hidden value and lists every persona")
    func consentPage() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let query = Harness.query(["client_id": Harness.webClient, "redirect_uri": Harness.redirect, "response_type": "code",
                                       "response_mode": "form_post", "scope": "name", "state": Self.hostile])
            try await client.execute(uri: "/auth/authorize?" + query, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains(#"<input type="hidden" name="state" value="\#(Self.escaped)">"#))
                #expect(!response.text.contains("<script>"))
                #expect(response.text.contains(#"<input type="radio" name="persona" value="jane" checked>"#))
                #expect(response.text.contains(#"<input type="radio" name="persona" value="pat">"#))
                #expect(response.text.contains(#"<input type="text" name="first_name""#))
                #expect(!response.text.contains(#"name="email_choice""#))  // no email scope asked
                #expect(response.text.hasPrefix("<!DOCTYPE html>") && response.text.contains("<title>Sign in with Apple</title>"))
            }
        }
    }

    @Test("the error page and the form_post page escape what the request brought")
    func errorAndFormPostPages() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let wrong = Harness.query(["client_id": Harness.webClient, "redirect_uri": "https://evil.example/" + Self.hostile,
                                       "response_type": "code"])
            try await client.execute(uri: "/auth/authorize?" + wrong, method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("<title>Sign in with Apple: invalid_request</title>"))
                #expect(response.text.contains(Self.escaped) && !response.text.contains("<script>alert"))
            }
            let consent = Harness.query(["client_id": Harness.webClient, "redirect_uri": Harness.redirect, "response_type": "code",
                                         "response_mode": "form_post", "state": Self.hostile, "persona": "jane", "action": "continue"])
            try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(string: consent)) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains(#"<input type="hidden" name="state" value="\#(Self.escaped)">"#))
                #expect(response.text.contains("<script>document.forms[0].submit();</script>"))
                #expect(!response.text.contains("<script>alert"))
            }
        }
    }

    @Test("the relay inbox page escapes the persona it is asked for")
    func relayInboxPage() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/__admin/relay/inbox?persona=%3Cscript%3Ealert(1)%3C/script%3E", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("<h1>Private relay inbox: &lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
                #expect(!response.text.contains("<script>"))
                #expect(response.text.contains("<p>No mail yet.</p>"))
            }
        }
    }
}
