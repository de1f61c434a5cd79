import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import MockAppleIDTesting

/// Builds servers over the built-in scenario and drives them in memory or over a real socket.
enum Harness {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let webClient = "com.example.web"
    static let redirect = "http://localhost:3000/auth/apple/callback"
    static let formType: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    static func provider(_ change: (inout Scenario) -> Void = { _ in }) throws -> AppleIDProvider {
        var scenario = try BuiltInScenario.load()
        change(&scenario)
        return try AppleIDProvider(scenario: scenario, clock: .manual(at: start))
    }

    /// Runs `body` against an in-memory router over `provider`.
    static func withRouter(_ provider: AppleIDProvider, configuration: ServerConfiguration = ServerConfiguration(),
                           _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: MockAppleIDServer(provider: provider, configuration: configuration).makeRouter())
        try await app.test(.router, body)
    }

    static let signer = try! MockAppleIDTestServer.defaultClientSecret()

    static func secret(_ clientID: String = webClient, at date: Date = start) -> String {
        try! signer.make(clientID: clientID, issuedAt: date)
    }

    static func form(_ pairs: KeyValuePairs<String, String>) -> ByteBuffer {
        ByteBuffer(string: FormParameters(pairs.map { FormParameters.Pair($0.key, $0.value) }).urlEncoded)
    }

    static func query(_ pairs: KeyValuePairs<String, String>) -> String {
        FormParameters(pairs.map { FormParameters.Pair($0.key, $0.value) }).urlEncoded
    }

    /// A valid web authorization query (form_post, name and email, nonce, state).
    static let authorizeQuery = query([
        "client_id": webClient, "redirect_uri": redirect, "response_type": "code id_token", "response_mode": "form_post",
        "scope": "name email", "state": "st4te", "nonce": "n0nce",
    ])

    /// The hidden inputs of an HTML page (the form_post page or the consent form), in order.
    static func hiddenFields(_ html: String) -> [(String, String)] {
        html.matches(of: /<input type="hidden" name="([^"]*)" value="([^"]*)">/).map {
            (unescape(String($0.output.1)), unescape(String($0.output.2)))
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func field(_ name: String, in html: String) -> String? {
        hiddenFields(html).first { $0.0 == name }?.1
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: JSONValue? { JSONValue.parse(Data(text.utf8)) }
}
