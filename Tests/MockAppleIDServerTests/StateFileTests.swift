import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import MockAppleIDStorage
import Synchronization
import Testing

/// The SQLite state file (`serve --state`) behind the HTTP server: a world written through the admin API comes back
/// in a new server, and a change that cannot be saved is answered with 503. The files it refuses are
/// `MockAppleIDStorageTests`' `SQLiteStateFileTests`.
@Suite("state file")
struct StateFileTests {
    /// A new empty folder for one test's files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mock-appleid-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func personaBody(_ id: String) -> ByteBuffer {
        ByteBuffer(string: #"{"id":"\#(id)","firstName":"Kim","lastName":"Lee","email":"\#(id)@example.com"}"#)
    }

    static let json: HTTPFields = [.contentType: "application/json"]

    /// Signs `persona` in to the web client through the Swift API.
    static func signIn(_ provider: AppleIDProvider, _ persona: String) throws {
        let parameters = FormParameters([.init("client_id", Harness.webClient), .init("redirect_uri", Harness.redirect),
                                         .init("response_type", "code"), .init("scope", "name email"), .init("response_mode", "form_post")])
        _ = try provider.completeAuthorization(parameters, decision: .approve(personaID: persona, emailChoice: nil, name: nil))
    }

    @Test("what was acknowledged is in the file: a new server on it has the persona, the clock and the consents, not the revoked one")
    func restoredByANewServer() async throws {
        let path = try Self.folder().appendingPathComponent("world.sqlite").path
        let first = try Harness.provider()
        let file = try await SQLiteStateFile.open(path: path)
        #expect(try await first.keepState(in: file) == false)
        try await Harness.withRouter(first) { client in
            try await client.execute(uri: "/__admin/personas", method: .post, headers: Self.json, body: Self.personaBody("kim")) { response in
                #expect(response.status == .created || response.status == .ok)
            }
            try await client.execute(uri: "/__admin/clock", method: .post, headers: Self.json,
                                     body: ByteBuffer(string: #"{"advance": 600}"#)) { response in
                #expect(response.status == .ok)
            }
        }
        try Self.signIn(first, "jane")
        try Self.signIn(first, "kim")
        try await first.waitUntilSaved()
        try first.revokeConsent(personaID: "kim", clientID: Harness.webClient)
        try await first.stopKeepingState()
        await file.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let second = try Harness.provider()
        let reopened = try await SQLiteStateFile.open(path: path)
        #expect(try await second.keepState(in: reopened) == true)
        #expect(second.persona("kim")?.email == "kim@example.com")
        #expect(second.clock.now == Harness.start.addingTimeInterval(600))
        #expect(second.consent(personaID: "jane", clientID: Harness.webClient) != nil)
        #expect(second.consent(personaID: "kim", clientID: Harness.webClient) == nil)
        try second.createPersona(Persona(id: "lee", firstName: "Lee", lastName: "Kim", email: nil))
        try await second.waitUntilSaved()
        try await second.stopKeepingState()
        await reopened.close()

        let third = try Harness.provider()
        let again = try await SQLiteStateFile.open(path: path)
        try await third.keepState(in: again)
        #expect(third.persona("lee") != nil && third.persona("kim") != nil)
        await again.close()
    }

    @Test("when the store cannot be written, the request that made the change gets 503 state_not_saved, and so does every later one")
    func unsavedChangeIs503() async throws {
        let provider = try Harness.provider()
        let store = FailingStore()
        try await provider.keepState(in: store)
        store.failing.store(true, ordering: .relaxed)
        try await Harness.withRouter(provider) { client in
            for id in ["kim", "lee"] {
                try await client.execute(uri: "/__admin/personas", method: .post, headers: Self.json, body: Self.personaBody(id)) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(String(buffer: response.body).contains(#""error":"state_not_saved""#))
                    #expect(String(buffer: response.body).contains("failing store: disk full"))
                }
            }
        }
    }

    /// A store that takes every batch until ``failing`` is set, and then fails every write.
    final class FailingStore: WorldStore {
        let name = "failing store"
        let failing = Atomic<Bool>(false)

        func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow] { [] }

        func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) {
            if failing.load(ordering: .relaxed) { throw StateStoreError("\(name): disk full") }
        }
    }
}
