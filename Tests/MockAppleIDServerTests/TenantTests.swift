import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
@testable import MockAppleIDServer
@testable import MockAppleIDStorage
import SQLiteNIO
import Testing

/// Tenants: isolated worlds under `/t/<name>/`, made and removed through the admin API, and kept in
/// the state file.
@Suite("tenants")
struct TenantTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    static func post(_ client: some TestClientProtocol, _ uri: String, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: json, body: ByteBuffer(string: body))
    }

    @Test("a tenant has its own personas, clock and discovery under /t/<name>, and is gone with everything once removed")
    func isolatedWorlds() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider, configuration: ServerConfiguration(publicBaseURL: "https://idp.test")) { client in
            #expect(try await Self.post(client, "/__admin/tenants", #"{"name":"ci-1"}"#).status == .created)
            let created = try await Self.post(client, "/__admin/tenants", #"{"name":"ci-2","yaml":"base: default\nname: checkout"}"#)
            #expect(created.status == .created && String(buffer: created.body).contains(#""scenario":"checkout""#))

            let discovery = try await client.execute(uri: "/t/ci-1/.well-known/openid-configuration", method: .get)
            #expect(String(buffer: discovery.body).contains(#""token_endpoint":"https://idp.test/t/ci-1/auth/token""#))
            #expect(String(buffer: discovery.body).contains(#""issuer":"https://appleid.apple.com""#))

            let persona = #"{"id":"kim","firstName":"Kim","lastName":"Lee","email":"kim@example.com"}"#
            #expect(try await Self.post(client, "/t/ci-1/__admin/personas", persona).status == .created)
            #expect(try await client.execute(uri: "/t/ci-1/__admin/personas/kim", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/t/ci-2/__admin/personas/kim", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/__admin/personas/kim", method: .get).status == .notFound)
            #expect(try await Self.post(client, "/t/ci-2/__admin/clock", #"{"advance": 3600}"#).status == .ok)
            #expect(provider.clock.now == Harness.start)

            let keys = try await client.execute(uri: "/t/ci-1/auth/keys", method: .get)
            #expect(keys.status == .ok && String(buffer: keys.body).contains(#""kty":"RSA""#))
            let listed = try await client.execute(uri: "/__admin/tenants", method: .get)
            #expect(String(buffer: listed.body)
                == #"{"tenants":[{"name":"ci-1","path":"/t/ci-1","scenario":"default"},{"name":"ci-2","path":"/t/ci-2","scenario":"checkout"}]}"#)

            #expect(try await client.execute(uri: "/__admin/tenants/ci-1", method: .delete).status == .ok)
            #expect(try await client.execute(uri: "/__admin/tenants/ci-2", method: .delete).status == .ok)
            let gone = try await client.execute(uri: "/t/ci-1/auth/keys", method: .get)
            #expect(gone.status == .notFound && String(buffer: gone.body).contains("no tenant named \\\"ci-1\\\""))
            #expect(try await client.execute(uri: "/__admin/tenants/ci-1", method: .delete).status == .notFound)
        }
    }

    @Test("bad names, a name taken, a bad scenario and a tenant's own admin API asking for tenants are refused")
    func refusals() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            for body in [#"{}"#, #"{"name":"Upper"}"#, #"{"name":"-x"}"#, #"{"name":"a/b"}"#, #"{"name":""}"#,
                         #"{"name":"x","yaml":"nope: ["}"#, #"{"name":"x","extra":1}"#] {
                let response = try await Self.post(client, "/__admin/tenants", body)
                #expect(response.status == .badRequest, "\(body)")
            }
            #expect(try await Self.post(client, "/__admin/tenants", #"{"name":"a"}"#).status == .created)
            let taken = try await Self.post(client, "/__admin/tenants", #"{"name":"a"}"#)
            #expect(taken.status == .conflict && String(buffer: taken.body).contains("tenant a exists already"))
            #expect(try await client.execute(uri: "/t/a/__admin/tenants", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/__admin/tenants/a", method: .delete).status == .ok)
        }
    }

    @Test("with a state file, tenants and their worlds are made again at the next start, and a removed one leaves no rows")
    func keptInTheStateFile() async throws {
        let path = try StateFileTests.folder().appendingPathComponent("world.sqlite").path
        let file = try await SQLiteStateFile.open(path: path)
        let first = MockAppleIDServer(provider: try Harness.provider(), tenantStore: file)
        let tenants = try #require(first.tenants)
        let kept = try await tenants.create(TenantRecord(name: "kept", scenarioYAML: "base: default\nname: kept-scenario"))
        try kept.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        let dropped = try await tenants.create(TenantRecord(name: "dropped"))
        try dropped.createPersona(Persona(id: "lee", firstName: "Lee", lastName: "Kim", email: nil))
        try await dropped.waitUntilSaved()
        #expect(try await tenants.remove("dropped"))
        await tenants.shutdown()
        await file.close()

        let reopened = try await SQLiteStateFile.open(path: path)
        #expect(try await reopened.tenants().map(\.name) == ["kept"])
        #expect(try await reopened.world(ofTenant: "dropped").loadRows(scenario: "default").isEmpty)
        let second = MockAppleIDServer(provider: try Harness.provider(), tenantStore: reopened)
        try await second.tenants?.restore()
        let restored = try #require(second.tenants?.provider("kept"))
        #expect(restored.scenario.name == "kept-scenario" && restored.persona("kim") != nil)
        #expect(second.tenants?.provider("dropped") == nil)
        await second.tenants?.shutdown()
        await reopened.close()
    }

    @Test("a state file of format 2 (relay mail and deliveries inside their sections' rows) is migrated: every message and delivery kept, in order")
    func migratesFormatTwo() async throws {
        let source = try Harness.provider()
        try source.setNotificationURL("http://127.0.0.1:9/hook", app: "com.example.app")
        try StateFileTests.signIn(source, "john")
        let address = try source.relayAddress(personaID: "john", app: Harness.webClient)
        try source.setEmailSources(["news@example.com"], team: "MOCKTEAM01")
        for subject in ["one", "two", "three"] {
            let mail = RelaySubmission(envelopeFrom: "news@example.com", recipients: [address],
                                       data: "From: news@example.com\r\nSubject: \(subject)\r\n\r\nBody\r\n")
            #expect(source.deliverRelayMail(mail).delivered.count == 1)
        }
        try source.notify(.emailDisabled, personaID: "john", app: "com.example.app")
        // A format-2 file kept these sections as the snapshot does: the lists inside the section's row.
        let snapshot = try JSONSerialization.jsonObject(with: JSONEncoder().encode(source.snapshot())) as? [String: Any]
        let state = try #require(snapshot?["state"] as? [String: Any])
        func text(_ section: String) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: try #require(state[section])), as: UTF8.self)
        }

        let path = try StateFileTests.folder().appendingPathComponent("format2.sqlite").path
        let raw = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in StateFileSchema.migrations[0] + StateFileSchema.migrations[1] { _ = try await raw.query(statement) }
        _ = try await raw.query("PRAGMA application_id = \(StateFileSchema.applicationID)")
        _ = try await raw.query("PRAGMA user_version = 2")
        _ = try await raw.query("INSERT INTO meta (name, value) VALUES ('scenario', 'default')")
        for section in ["relay", "outbox", "directory", "personas"] {
            _ = try await raw.query("INSERT INTO world_rows (tenant, section, key, value) VALUES ('', ?, '', ?)", [.text(section), .text(try text(section))])
        }
        try await raw.close()

        let file = try await SQLiteStateFile.open(path: path)
        let restored = try Harness.provider()
        #expect(try await restored.keepState(in: file) == true)
        #expect(restored.relayMessages() == source.relayMessages())
        #expect(restored.relayMessages().map(\.subject) == ["one", "two", "three"])
        #expect(restored.notificationDeliveries() == source.notificationDeliveries())
        try await restored.stopKeepingState()
        await file.close()
    }

    @Test("a state file of format 3 (the index of refresh tokens kept as rows) is migrated: each listed grant gets its place as a serial below zero, and the index rows go")
    func migratesFormatThree() async throws {
        let path = try StateFileTests.folder().appendingPathComponent("format3.sqlite").path
        let raw = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in StateFileSchema.migrations[0..<3].joined() { _ = try await raw.query(statement) }
        _ = try await raw.query("PRAGMA application_id = \(StateFileSchema.applicationID)")
        _ = try await raw.query("PRAGMA user_version = 3")
        let rows: [(tenant: String, section: String, key: String, value: String)] = [
            ("", "refreshGrants", "old", #"{"token":"old"}"#), ("", "refreshGrants", "new", #"{"token":"new"}"#),
            ("", "refreshGrants", "unlisted", #"{"token":"unlisted"}"#), ("", "refreshGrants", "numbered", #"{"serial":7,"token":"numbered"}"#),
            ("", "refreshTokensByOwner", "jane", #"["old","new","numbered"]"#),
            ("kept", "refreshGrants", "old", #"{"token":"old"}"#), ("kept", "refreshTokensByOwner", "jane", #"["x","old"]"#),
        ]
        for row in rows {
            _ = try await raw.query("INSERT INTO world_rows (tenant, section, key, value) VALUES (?, ?, ?, ?)",
                                    [.text(row.tenant), .text(row.section), .text(row.key), .text(row.value)])
        }
        try await raw.close()

        let file = try await SQLiteStateFile.open(path: path)
        await file.close()
        let check = try await SQLiteConnection.open(storage: .file(path: path))
        #expect(try await check.query("PRAGMA user_version").first?.columns.first?.data.integer == 4)
        let serials = try await check.query(
            "SELECT tenant, key, json_extract(value, '$.serial') AS serial FROM world_rows WHERE section = 'refreshGrants' ORDER BY tenant, key")
        #expect(serials.map { "\($0.column("tenant")?.string ?? "?") \($0.column("key")?.string ?? "?") \($0.column("serial")?.integer.map(String.init) ?? "none")" }
            == [" new -2", " numbered 7", " old -3", " unlisted none", "kept old -1"])
        #expect(try await check.query("SELECT count(*) FROM world_rows WHERE section = 'refreshTokensByOwner'").first?.columns.first?.data.integer == 0)
        try await check.close()
    }

    @Test("a state file of format 1 (one world, no tenants) is migrated when opened: its world kept, removals still remove rows")
    func migratesFormatOne() async throws {
        let path = try StateFileTests.folder().appendingPathComponent("old.sqlite").path
        let raw = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in StateFileSchema.migrations[0] { _ = try await raw.query(statement) }
        _ = try await raw.query("PRAGMA application_id = \(0x4D41_4944)")
        _ = try await raw.query("PRAGMA user_version = 1")
        _ = try await raw.query("INSERT INTO meta (name, value) VALUES ('scenario', 'default')")
        _ = try await raw.query(#"INSERT INTO world_rows (section, key, value) VALUES ('autoApprove', '', '{"persona":"john"}')"#)
        try await raw.close()

        let file = try await SQLiteStateFile.open(path: path)
        let provider = try Harness.provider()
        #expect(try await provider.keepState(in: file) == true)
        #expect(provider.autoApprove()?.persona == "john")
        #expect(try await file.tenants().isEmpty)
        try StateFileTests.signIn(provider, "jane")
        try await provider.waitUntilSaved()
        try provider.revokeConsent(personaID: "jane", clientID: Harness.webClient)
        try await provider.stopKeepingState()
        await file.close()
        let check = try await SQLiteConnection.open(storage: .file(path: path))
        #expect(try await check.query("PRAGMA user_version").first?.columns.first?.data.integer == StateFileSchema.currentVersion)
        let grants = try await check.query("SELECT count(*) FROM world_rows WHERE section IN ('consents', 'codes')")
        #expect(grants.first?.columns.first?.data.integer == 0)
        try await check.close()
    }
}
