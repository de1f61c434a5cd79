import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import Testing

/// Seeded random JSON at every admin endpoint: wrong types, extreme and non-finite numbers, deep
/// nesting, unknown fields. Every answer is a 2xx or a 4xx in the admin shape, never a 5xx or a crash,
/// and the server still signs in afterwards.
@Suite("admin fuzz")
struct AdminFuzzTests {
    static let endpoints: [(HTTPRequest.Method, String)] = [
        (.post, "/__admin/clock"), (.post, "/__admin/personas"), (.patch, "/__admin/personas/jane"),
        (.post, "/__admin/personas/john/revoke-consent"), (.post, "/__admin/personas/noemail/delete-account"),
        (.put, "/__admin/auto-approve"), (.post, "/__admin/native-sign-in"), (.post, "/__admin/keys"),
        (.post, "/__admin/keys/mRS1a8XkPq/activate"), (.post, "/__admin/keys/mRS3cY7jLd/retire"), (.put, "/__admin/keys/shuffle"),
        (.post, "/__admin/faults"), (.delete, "/__admin/faults/1"), (.post, "/__admin/timeline"), (.post, "/__admin/timeline/step"),
        (.get, "/__admin/journal?after=-5"), (.get, "/__admin/events?after=99999999999999999999"), (.post, "/__admin/reset"),
        (.post, "/__admin/notifications"), (.post, "/__admin/notifications/retry"), (.put, "/__admin/apps/com.example.app/notification-url"),
        (.put, "/__admin/teams/MOCKTEAM01/email-sources"), (.get, "/__admin/relay/messages?persona=%ff"), (.delete, "/__admin/relay/messages"),
        (.get, "/__admin/relay/inbox?persona=<script>"), (.get, "/__admin/relay/addresses"),
        (.post, "/__admin/apps/com.example.web/transfer"), (.get, "/__admin/transfers"),
    ]

    static let keys = [
        "set", "advance", "frozen", "id", "persona", "email", "emailChoice", "realUserStatus", "firstName", "managed", "client",
        "bundleID", "nonce", "scopes", "kid", "pem", "generate", "alg", "activate", "at", "shuffled", "fault", "seconds", "status",
        "error", "count", "always", "clientID", "timeline", "scenario", "do", "type", "app", "url", "relayForwarding", "yaml", "files",
        "sources", "team",
    ]

    static func value(_ random: inout BadInputTests.SeededGenerator, depth: Int = 0) -> JSONValue {
        let extremes: [JSONValue] = [
            .double(1e300), .double(-1e300), .double(9.2e18), .double(-9.2e18), .int(.max), .int(.min), .int(0), .int(-1),
            .double(0.5), .double(1e-300), .int(253_402_300_800), .int(2), .int(503),
        ]
        let strings = ["", "jane", "hide", "share", "likelyReal", "com.example.app", "com.example.web", "2026-01-01T09:00:00Z",
                       "token-delay", "id-token-expired", "invalid_grant", "RS256", "ES256", "signIn", "mRS2bT4nWz", "∞",
                       String(repeating: "x", count: 300), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"]
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &random) {
        case 0: return extremes.randomElement(using: &random)!
        case 1: return .string(strings.randomElement(using: &random)!)
        case 2: return .bool(Bool.random(using: &random))
        case 3: return .null
        case 4: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default: return object(&random, depth: depth + 1)
        }
    }

    static func object(_ random: inout BadInputTests.SeededGenerator, depth: Int = 0) -> JSONValue {
        .object((0..<Int.random(in: 0...4, using: &random)).map { _ in (keys.randomElement(using: &random)!, value(&random, depth: depth)) })
    }

    @Test("300 random JSON bodies per admin endpoint: no 5xx, errors in the admin shape, sign-in still works")
    func fuzz() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            var random = BadInputTests.SeededGenerator(state: 0x5eed_ad41)
            let json: HTTPFields = [.contentType: "application/json"]
            for (method, path) in Self.endpoints {
                for round in 0..<300 {
                    let body: String
                    switch round % 10 {
                    case 0: body = String(repeating: "[", count: 2000)
                    case 1: body = "{\"set\": 1e999}"
                    default: body = Self.object(&random).serialized
                    }
                    try await client.execute(uri: path, method: method, headers: json, body: ByteBuffer(string: body)) { response in
                        #expect(response.status.code < 500, "\(method) \(path) \(body) → \(response.status)")
                        if response.status.code >= 400 {
                            #expect(response.json?["error"]?.stringValue != nil, "\(method) \(path) \(body): \(response.text)")
                        }
                    }
                }
                provider.reset()
            }
            _ = try await TokenEndpointTests.code(client)
        }
    }
}
