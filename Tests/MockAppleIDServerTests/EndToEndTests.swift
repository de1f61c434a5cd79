import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import MockAppleIDTesting
import Testing

/// Over a real socket on 127.0.0.1.
@Suite("end to end over a socket")
struct EndToEndTests {
    @Test("live server: consent page, code exchange, refresh and revoke")
    func liveFlow() async throws {
        let app = Application(router: MockAppleIDServer(provider: try Harness.provider()).makeRouter())
        try await app.test(.live) { client in
            let code = try await TokenEndpointTests.code(client)
            let tokens = try await client.execute(uri: "/auth/token", method: .post, headers: Harness.formType,
                                                  body: TokenEndpointTests.exchangeBody(code)) { try #require($0.json) }
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let keys = try await client.execute(uri: "/auth/keys", method: .get) { $0.text }
            let jws = try CompactJWS(compact: idToken)
            let provider = try Harness.provider()
            #expect(keys == provider.keySetJSON)
            #expect(provider.keySet.key(withID: jws.header["kid"]!.stringValue!)!.isValidSignature(jws.signature, for: jws.signingInput))
            let revoke = Harness.form(["client_id": Harness.webClient, "client_secret": Harness.secret(),
                                       "token": tokens["refresh_token"]!.stringValue!])
            try await client.execute(uri: "/auth/revoke", method: .post, headers: Harness.formType, body: revoke) { #expect($0.status == .ok) }
        }
    }

    @Test("the embedding library starts a server on a free port and signs in headlessly")
    func embedding() async throws {
        try await MockAppleIDTestServer.withRunning(clock: .manual(at: Harness.start)) { server in
            #expect(server.port > 0)
            #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
            let first = try await server.signIn(persona: "john", nonce: "abc")
            #expect(first.user?.contains("@private.icloud.com") == true)
            let tokens = try #require(first.tokens)
            #expect(try CompactJWS(compact: tokens.idToken).payload["nonce"] == .string("abc"))
            let again = try await server.signIn(persona: "john")
            #expect(again.user == nil)
            try server.provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: "kim@example.com"))
            let kim = try await server.signIn(persona: "kim", name: PersonName(firstName: "K", lastName: "L"))
            #expect(kim.user == #"{"name":{"firstName":"K","lastName":"L"},"email":"kim@example.com"}"#)
            try server.clock.advance(by: 301)
            let stale = try await server.signIn(persona: "jane", exchange: false)
            try server.clock.advance(by: 301)
            await #expect(throws: SignInError.self) {
                try await server.exchangeCode(stale.code, clientID: "com.example.web", redirectURI: "http://localhost:3000/auth/apple/callback")
            }
            let (data, response) = try await URLSession.shared.data(from: URL(string: server.baseURL + "/auth/keys")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == server.provider.keySetJSON)
            let (discovery, _) = try await URLSession.shared.data(from: URL(string: server.baseURL + "/.well-known/openid-configuration")!)
            #expect(JSONValue.parse(discovery)?["token_endpoint"] == .string(server.baseURL + "/auth/token"))
        }
    }

    @Test("two servers in one process do not share state")
    func isolation() async throws {
        try await MockAppleIDTestServer.withRunning { first in
            try await MockAppleIDTestServer.withRunning { second in
                #expect(first.port != second.port)
                _ = try await first.signIn(persona: "jane")
                #expect(first.provider.consent(personaID: "jane", clientID: "com.example.web") != nil)
                #expect(second.provider.consent(personaID: "jane", clientID: "com.example.web") == nil)
            }
        }
    }
}
