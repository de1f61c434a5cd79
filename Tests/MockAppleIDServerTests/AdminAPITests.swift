import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MockAppleID
import NIOCore
@testable import MockAppleIDServer
import Testing

/// The admin API under /__admin.
@Suite("admin API")
struct AdminAPITests {
    static let json: HTTPFields = [.contentType: "application/json"]

    @Test("health and reset")
    func healthAndReset() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            try await client.execute(uri: "/__admin/health", method: .get) { response in
                #expect(response.json?["status"] == .string("ok"))
                #expect(response.json?["scenario"] == .string("default"))
            }
            _ = try await TokenEndpointTests.code(client)
            try await client.execute(uri: "/__admin/reset", method: .post) { #expect($0.status == .unsupportedMediaType) }
            try await client.execute(uri: "/__admin/reset", method: .post, headers: Self.json) { #expect($0.status == .ok) }
            #expect(provider.journal.entries().isEmpty)
            #expect(provider.consent(personaID: "jane", clientID: Harness.webClient) == nil)
        }
    }

    @Test("clock: read, set (ISO or epoch), advance, freeze; bad input is 400")
    func clock() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            try await client.execute(uri: "/__admin/clock", method: .get) { response in
                #expect(response.json?["frozen"] == .bool(true))
                #expect(response.json?["epochSeconds"]?.int64Value == 1_790_000_000)
            }
            try await client.execute(uri: "/__admin/clock", method: .post, headers: Self.json,
                                     body: ByteBuffer(string: #"{"set":"2030-01-01T00:00:00Z","advance":301}"#)) { response in
                #expect(response.status == .ok)
                #expect(response.json?["now"] == .string("2030-01-01T00:05:01Z"))
            }
            try await client.execute(uri: "/__admin/clock", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"set":1000}"#)) { _ in }
            #expect(provider.clock.now == Date(timeIntervalSince1970: 1000))
            try await client.execute(uri: "/__admin/clock", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"frozen":false}"#)) { response in
                #expect(response.json?["frozen"] == .bool(false))
            }
            for bad in [#"{"set":"yesterday"}"#, #"{"advance":"1h"}"#, #"{"frozen":"yes"}"#, "[1]", "not json"] {
                try await client.execute(uri: "/__admin/clock", method: .post, headers: Self.json, body: ByteBuffer(string: bad)) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                    #expect(response.json?["message"] != nil)
                }
            }
        }
    }

    @Test("clock: out-of-range and non-finite times are a 400 naming the limit, and sign-in keeps working", arguments: [
        #"{"set":1e300}"#, #"{"set":-1e300}"#, #"{"set":9.2e18}"#, #"{"advance":1e300}"#, #"{"advance":-1e300}"#,
        #"{"set":253402300800}"#, #"{"set":"10000-01-01T00:00:00Z"}"#,
    ])
    func clockRange(_ body: String) async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            _ = try await TokenEndpointTests.code(client)
            try await client.execute(uri: "/__admin/clock", method: .post, headers: Self.json, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .badRequest)
                let message = response.json?["message"]?.stringValue ?? ""
                #expect(message.contains("9999") || message.contains("100 years") || message.contains("ISO 8601"), "\(message)")
            }
            #expect(provider.clock.now == Harness.start)
            let code = try await TokenEndpointTests.code(client)
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: Harness.form([
                "client_id": Harness.webClient, "client_secret": Harness.secret(), "grant_type": "authorization_code", "code": code,
                "redirect_uri": Harness.redirect,
            ])) { #expect($0.status == .ok) }
        }
    }

    @Test("admin writes refuse cross-site browsers and non-JSON bodies")
    func crossSite() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            let plain: HTTPFields = [.contentType: "text/plain"]
            try await client.execute(uri: "/__admin/clock", method: .post, headers: plain, body: ByteBuffer(string: #"{"advance":60}"#)) {
                #expect($0.status == .unsupportedMediaType)
            }
            let crossSite: HTTPFields = [.contentType: "application/json", HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
            try await client.execute(uri: "/__admin/reset", method: .post, headers: crossSite) { #expect($0.status == .forbidden) }
            let otherOrigin: HTTPFields = [.contentType: "application/json", HTTPField.Name("Origin")!: "https://evil.example"]
            try await client.execute(uri: "/__admin/clock", method: .post, headers: otherOrigin, body: ByteBuffer(string: #"{"advance":60}"#)) {
                #expect($0.status == .forbidden)
            }
            #expect(provider.clock.now == Harness.start)
        }
    }

    @Test("personas: list, create, get, patch; errors are 400, 404, or 409 for an id taken")
    func personas() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/__admin/personas", method: .get) { response in
                guard case let .array(items) = try #require(response.json) else { Issue.record("not an array"); return }
                #expect(items.compactMap { $0["id"]?.stringValue } == ["jane", "john", "noemail", "pat"])
            }
            let new = #"{"id":"kim","firstName":"Kim","lastName":"Lee","email":"kim@example.com","emailChoice":"hide","realUserStatus":"unknown"}"#
            try await client.execute(uri: "/__admin/personas", method: .post, headers: Self.json, body: ByteBuffer(string: new)) { response in
                #expect(response.status == .created)
                #expect(response.json?["realUserStatus"] == .string("unknown"))
            }
            try await client.execute(uri: "/__admin/personas", method: .post, headers: Self.json, body: ByteBuffer(string: new)) { response in
                #expect(response.status == .conflict)
                #expect(response.json?["error"] == .string("persona_exists"))
                #expect(response.json?["message"] == .string(#"persona "kim" already exists"#))
            }
            try await client.execute(uri: "/__admin/personas/kim", method: .patch, headers: Self.json,
                                     body: ByteBuffer(string: #"{"email":null,"emailChoice":"share"}"#)) { response in
                #expect(response.status == .ok)
                #expect(response.json?["email"] == .null)
                #expect(response.json?["firstName"] == .string("Kim"))
            }
            try await client.execute(uri: "/__admin/personas/kim", method: .patch, headers: Self.json,
                                     body: ByteBuffer(string: #"{"emailChoice":"hide"}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["message"]?.stringValue?.contains("nothing to hide") == true)
            }
            try await client.execute(uri: "/__admin/personas/ghost", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/__admin/personas/kim", method: .patch, headers: Self.json, body: ByteBuffer(string: #"{"id":"other"}"#)) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/__admin/personas", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"firstName":"x"}"#)) {
                #expect($0.status == .badRequest)
                #expect($0.json?["message"]?.stringValue?.contains("missing id") == true)
            }
        }
    }

    @Test("a persona whose id needs percent-encoding in a path is found by it (josé, 100% sure); a broken escape is 400")
    func percentEncodedPersonaIDs() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            for (id, path) in [("josé", "jos%C3%A9"), ("100% sure", "100%25%20sure")] {
                let body = JSONValue.object([("id", .string(id)), ("email", .string("x@example.com"))]).serialized
                try await client.execute(uri: "/__admin/personas", method: .post, headers: Self.json, body: ByteBuffer(string: body)) {
                    #expect($0.status == .created)
                }
                try await client.execute(uri: "/__admin/personas/\(path)", method: .get) { response in
                    #expect(response.status == .ok, "\(id)")
                    #expect(response.json?["id"] == .string(id))
                }
                try await client.execute(uri: "/__admin/personas/\(path)/revoke-consent", method: .post, headers: Self.json,
                                         body: ByteBuffer(string: #"{"client":"com.example.web"}"#)) { #expect($0.status != .notFound, "\(id)") }
            }
            try await client.execute(uri: "/__admin/personas/100%zz", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["error"] == .string("bad_request"))
            }
        }
    }

    @Test("auto-approve: set, read, clear; unknown persona is 404")
    func autoApprove() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            try await client.execute(uri: "/__admin/auto-approve", method: .put, headers: Self.json,
                                     body: ByteBuffer(string: #"{"persona":"john","emailChoice":"share"}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/__admin/auto-approve", method: .get) { response in
                #expect(response.json?["autoApprove"]?["persona"] == .string("john"))
            }
            try await client.execute(uri: "/auth/authorize?" + Harness.authorizeQuery, method: .get) { response in
                #expect(Harness.field("code", in: response.text) != nil)
            }
            try await client.execute(uri: "/__admin/auto-approve", method: .put, headers: Self.json,
                                     body: ByteBuffer(string: #"{"persona":"ghost"}"#)) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/__admin/auto-approve", method: .delete) { response in
                #expect(response.json?["autoApprove"] == .null)
            }
            #expect(provider.autoApprove() == nil)
        }
    }

    @Test("journal: each Apple-endpoint request with its outcome and real reason; ?after= pages")
    func journal() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let expired = Harness.form(["client_id": Harness.webClient, "client_secret": Harness.secret(at: Harness.start.addingTimeInterval(-7200)),
                                        "grant_type": "authorization_code", "code": "c"])
            try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType, body: expired) { _ in }
            try await client.execute(uri: "/auth/keys", method: .get) { _ in }
            try await client.execute(uri: "/__admin/journal", method: .get) { response in
                guard case let .array(entries) = try #require(response.json?["entries"]) else { Issue.record("no entries"); return }
                #expect(entries.count == 2)
                #expect(entries[1]["endpoint"] == .string("/auth/keys"))
                #expect(entries[0]["endpoint"] == .string("/auth/token"))
                #expect(entries[0]["error"] == .string("invalid_client"))
                #expect(entries[0]["reason"]?.stringValue?.contains("expired") == true)
                #expect(entries[0]["status"] == .int(400))
            }
            try await client.execute(uri: "/__admin/journal?after=2", method: .get) { response in
                #expect(response.json?["entries"] == .array([]))
            }
        }
    }
}

@Suite("routing and admin access")
struct RoutingTests {
    @Test("a wrong method gets 405 with Allow naming the path's methods; HEAD answers like GET without a body")
    func methods() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/auth/revoke", method: .get) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST")
            }
            try await client.execute(uri: "/__admin/personas/jane", method: .put) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(Set((response.headers[.allow] ?? "").split(separator: ", ").map(String.init)) == ["GET", "HEAD", "PATCH"])
            }
            try await client.execute(uri: "/__admin/personas/jane/extra", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/auth/keys", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
                #expect(Int(response.headers[.contentLength] ?? "") ?? 0 > 100)
            }
        }
    }

    @Test("loopback addresses are told from others, IPv4, IPv6 and IPv4-mapped")
    func loopback() throws {
        for (address, expected) in [("127.0.0.1", true), ("127.8.9.10", true), ("::1", true), ("::ffff:127.0.0.1", true),
                                    ("10.0.0.1", false), ("::ffff:10.0.0.1", false), ("2001:db8::1", false), ("128.0.0.1", false)] {
            #expect(try SocketAddress(ipAddress: address, port: 1).isLoopback == expected, "\(address)")
        }
    }

    @Test("a public base URL's host is admitted as requests name it: an international name in its xn-- form")
    func publicHostName() {
        let configuration = ServerConfiguration(publicBaseURL: "https://Bücher.example:8443")
        #expect(configuration.adminHostNames.contains("xn--bcher-kva.example"))
        #expect(!configuration.adminHostNames.contains("bücher.example"))
    }
}
