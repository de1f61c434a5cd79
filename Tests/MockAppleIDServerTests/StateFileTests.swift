import Foundation
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import MockAppleIDStorage
import SQLiteNIO
import Synchronization
import Testing

/// The SQLite state file (`serve --state`): a world written through the admin API comes back in a new
/// server, and every file that cannot be used is refused with an error naming it.
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

    @Test("a file another server holds is refused, and so is one of another scenario")
    func inUseAndOtherScenario() async throws {
        let path = try Self.folder().appendingPathComponent("world.sqlite").path
        let file = try await SQLiteStateFile.open(path: path)
        try await Harness.provider().keepState(in: file)
        let inUse = await #expect(throws: StateStoreError.self) { _ = try await SQLiteStateFile.open(path: path) }
        #expect(inUse?.message == "\(path): is in use by another process (another mock-appleid?)")
        await file.close()

        let other = try Harness.provider { $0.name = "checkout-tests" }
        let reopened = try await SQLiteStateFile.open(path: path)
        let mismatch = await #expect(throws: StateStoreError.self) { try await other.keepState(in: reopened) }
        #expect(mismatch?.message.hasPrefix("\(path): holds the world of scenario \"default\", not \"checkout-tests\"") == true)
        await reopened.close()
    }

    @Test("a file that is not a state file, is damaged, comes from another program or a newer version, or has no folder, is refused by name")
    func unusableFiles() async throws {
        let folder = try Self.folder()
        func refusal(_ path: String) async -> String? {
            await #expect(throws: StateStoreError.self) { _ = try await SQLiteStateFile.open(path: path) }?.message
        }

        let text = folder.appendingPathComponent("notes.txt").path
        try Data(String(repeating: "not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        #expect(await refusal(text)?.hasPrefix("\(text): cannot be opened: not a state file") == true)

        let foreign = folder.appendingPathComponent("other.sqlite").path
        let connection = try await SQLiteConnection.open(storage: .file(path: foreign))
        _ = try await connection.query("CREATE TABLE songs (title TEXT)")
        try await connection.close()
        #expect(await refusal(foreign) == "\(foreign): is an SQLite database, but not a mock-appleid state file")
        let untouched = try await SQLiteConnection.open(storage: .file(path: foreign))
        #expect(try await untouched.query("PRAGMA journal_mode").first?.columns.first?.data.string == "delete")
        try await untouched.close()

        let newer = folder.appendingPathComponent("newer.sqlite").path
        let file = try await SQLiteStateFile.open(path: newer)
        await file.close()
        let raw = try await SQLiteConnection.open(storage: .file(path: newer))
        _ = try await raw.query("PRAGMA user_version = 7")
        try await raw.close()
        #expect(await refusal(newer) == "\(newer): was written by a newer mock-appleid (state format 7; this version reads up to 4)")

        let damaged = folder.appendingPathComponent("damaged.sqlite").path
        let good = try await SQLiteStateFile.open(path: damaged)
        try await Harness.provider().keepState(in: good)
        await good.close()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.seek(toOffset: 4096 + 8)
        handle.write(Data(repeating: 0xA5, count: 2048))
        try handle.close()
        let message = await refusal(damaged)
        #expect(message?.hasPrefix("\(damaged): ") == true)
        #expect(message.map { $0.contains("damaged") || $0.contains("malformed") } == true)

        #expect(await refusal(folder.path) == "\(folder.path): is a folder, not a state file")
        let orphan = folder.appendingPathComponent("missing/world.sqlite").path
        #expect(await refusal(orphan) == "\(orphan): its folder \(folder.appendingPathComponent("missing").path) does not exist")
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
