import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
@testable import MockAppleIDServer
import NIOCore
import Testing

/// Sign in with Apple JS: the script at Apple's path shape, and the `web_message` delivery its popup
/// mode asks for. The browser side (both modes, events, the button) runs in headless Chromium in the
/// conformance suite.
@Suite("Sign in with Apple JS")
struct SignInJSTests {
    @Test("appleid.auth.js is served for each of Apple's locales, at the root and the CDN prefix; other locales get 404")
    func script() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            for path in ["/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js",
                         CDNRoutes.cdnPrefix + "/appleauth/static/jsapi/appleid/1/fr_FR/appleid.auth.js"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/javascript;charset=utf-8")
                    #expect(response.text.contains("window.AppleID = { auth: { init: init, signIn: signIn, renderButton: renderButton } }"))
                }
            }
            try await client.execute(uri: "/appleauth/static/jsapi/appleid/1/xx_XX/appleid.auth.js", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("web_message: a page that posts the result, user as an object, to the redirect URI's origin, and closes")
    func webMessage() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let query = Harness.authorizeQuery.replacingOccurrences(of: "response_mode=form_post", with: "response_mode=web_message")
            #expect(query.contains("response_mode=web_message"))
            try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(string: query + "&persona=jane&action=continue")) { response in
                #expect(response.status == .ok)
                let page = response.text
                #expect(page.contains(#"data-origin="http://localhost:3000""#))
                #expect(page.contains("window.opener.postMessage(JSON.parse(result.dataset.message), result.dataset.origin)"))
                let encoded = try #require(page.firstMatch(of: /data-message="([^"]*)"/)).output.1
                let message = try #require(JSONValue.parse(Data(Harness.unescape(String(encoded)).utf8)))
                #expect(message["source"] == .string("mock-appleid"))
                #expect(message["authorization"]?["code"]?.stringValue?.isEmpty == false)
                #expect(message["authorization"]?["id_token"]?.stringValue?.isEmpty == false)
                #expect(message["authorization"]?["state"] == .string("st4te"))
                #expect(message["user"]?["email"] == .string("jane.appleseed@example.com"))
            }
            try await client.execute(uri: "/auth/authorize/consent", method: .post, headers: Harness.formType,
                                     body: ByteBuffer(string: query + "&action=cancel")) { response in
                let encoded = try #require(response.text.firstMatch(of: /data-message="([^"]*)"/)).output.1
                let message = try #require(JSONValue.parse(Data(Harness.unescape(String(encoded)).utf8)))
                #expect(message["error"] == .string("user_cancelled_authorize"))
                #expect(message["authorization"] == nil)
            }
        }
    }

    @Test("the message's target is the redirect URI's origin, nothing more")
    func origin() {
        #expect(AuthorizationDelivery.origin(of: "https://app.example.com/auth/apple/callback?x=1") == "https://app.example.com")
        #expect(AuthorizationDelivery.origin(of: "http://127.0.0.1:3000/cb") == "http://127.0.0.1:3000")
        #expect(AuthorizationDelivery.origin(of: "not a url") == "null")
        // Origins name hosts in ASCII, as browsers serialize them.
        #expect(AuthorizationDelivery.origin(of: "https://bücher.example:8443/cb") == "https://xn--bcher-kva.example:8443")
    }
}

/// The dashboard at the admin prefix.
@Suite("dashboard page")
struct DashboardPageTests {
    @Test("GET /__admin: the scenario, personas, apps and clients, latest requests, every value escaped")
    func dashboard() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/auth/keys", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/__admin", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html;charset=UTF-8")
                let page = response.text
                for expected in ["<code>jane</code>", "<code>com.example.web</code>", "http://localhost:3000/auth/apple/callback",
                                 "<code>GET /auth/keys</code>", "Notifications not yet delivered", #"href="/__admin/relay/inbox""#] {
                    #expect(page.contains(expected), "\(expected)")
                }
            }
            let persona = ByteBuffer(string: #"{"id":"tag","firstName":"<b>Bold</b>","lastName":"X","email":"tag@example.com"}"#)
            try await client.execute(uri: "/__admin/personas", method: .post, headers: [.contentType: "application/json"], body: persona) { response in
                #expect(response.status == .created)
            }
            try await client.execute(uri: "/__admin", method: .get) { response in
                #expect(response.text.contains("&lt;b&gt;Bold&lt;/b&gt;"))
                #expect(!response.text.contains("<b>Bold</b>"))
                #expect(response.text.contains(#"<p class="note">None.</p>"#), "no delivery is waiting yet")
                #expect(!response.text.contains("None yet."), "requests are listed")
            }
            let json: HTTPFields = [.contentType: "application/json"]
            try await client.execute(uri: "/__admin/apps/com.example.app/notification-url", method: .put, headers: json,
                                     body: ByteBuffer(string: #"{"url":"http://127.0.0.1:9/notifications"}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/__admin/notifications", method: .post, headers: json,
                                     body: ByteBuffer(string: #"{"type":"consent-revoked","persona":"jane","app":"com.example.app"}"#)) {
                #expect($0.status == .created)
            }
            try await client.execute(uri: "/__admin", method: .get) { response in
                #expect(response.text.contains("<tr><td>consent-revoked</td><td><code>jane</code></td><td><code>com.example.app</code></td><td>pending</td>"))
                #expect(!response.text.contains(#"<p class="note">None.</p>"#))
            }
        }
    }
}
