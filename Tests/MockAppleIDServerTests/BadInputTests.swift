import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import Testing

/// Garbage at every endpoint gets a 4xx answer in Apple's (or the admin API's) shape: never a 500.
@Suite("bad input")
struct BadInputTests {
    /// A deterministic generator, so a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    static let endpoints: [(HTTPRequest.Method, String)] = [
        (.post, "/auth/token"), (.post, "/auth/revoke"), (.post, "/auth/authorize"), (.post, "/auth/authorize/consent"),
        (.post, "/__admin/clock"), (.post, "/__admin/personas"), (.patch, "/__admin/personas/jane"), (.put, "/__admin/auto-approve"),
    ]

    /// Bodies built from fragments that resemble real input, mixed with random bytes.
    static func body(_ random: inout SeededGenerator) -> [UInt8] {
        let fragments = ["client_id=", "com.example.web", "client_secret=", "eyJhbGciOiJFUzI1NiJ9.e30.", "grant_type=", "authorization_code",
                         "refresh_token", "&", "=", "%", "%zz", "+", "code=", "redirect_uri=", "persona=", "action=continue", "{", "}",
                         "\"persona\":", "null", "[", "]", "\"set\":", "1e309", "-1", "\u{0}", "é", "scope=name%20email"]
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 0...24, using: &random) {
            if Bool.random(using: &random) {
                bytes += Array(fragments.randomElement(using: &random)!.utf8)
            } else {
                bytes += (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
        }
        return bytes
    }

    @Test("200 random bodies per endpoint, as form and as JSON: always a 4xx, never a 5xx")
    func randomBodies() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            var random = SeededGenerator(state: 20_261_122)
            for (method, path) in Self.endpoints {
                for round in 0..<200 {
                    let contentType = round.isMultiple(of: 2) ? "application/x-www-form-urlencoded" : "application/json"
                    try await client.execute(uri: path, method: method, headers: [.contentType: contentType],
                                             body: ByteBuffer(bytes: Self.body(&random))) { response in
                        #expect((400..<500).contains(response.status.code) || response.status == .ok || response.status == .created,
                                "\(method) \(path) round \(round): \(response.status)")
                    }
                }
            }
        }
    }

    @Test("random query strings at /auth/authorize: an error page or the consent page, never a 5xx")
    func randomQueries() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            var random = SeededGenerator(state: 7)
            for round in 0..<300 {
                let query = Self.body(&random).map { byte -> String in
                    let scalar = UnicodeScalar(byte)
                    return byte > 32 && byte < 127 && !"#?/ ".unicodeScalars.contains(scalar) ? String(scalar) : String(format: "%%%02X", byte)
                }.joined()
                try await client.execute(uri: "/auth/authorize?" + query, method: .get) { response in
                    #expect(response.status == .badRequest || response.status == .ok, "round \(round): \(query)")
                }
            }
        }
    }
}
