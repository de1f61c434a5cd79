import Foundation
@testable import MockAppleID
@testable import MockAppleIDStorage
import Testing

/// The cap on refresh tokens per persona and client revokes the oldest, also in a world read back from
/// a store or shared with another server: each grant's row carries its place in issue order, and the
/// index by persona and client is rebuilt from the grants rather than stored.
@Suite("refresh tokens by persona and client")
struct RefreshIndexTests {
    typealias DictionaryStore = StateStoreTests.DictionaryStore

    static func capOfTwo() throws -> AppleIDProvider { try Fixtures.provider { $0.settings.refreshTokensPerClient = 2 } }

    /// A sign-in's refresh token.
    static func refreshToken(_ provider: AppleIDProvider) throws -> String {
        let code = try #require(try provider.signIn("jane")["code"])
        return try #require(try provider.exchange(code).get()["refresh_token"]?.stringValue)
    }

    /// Whether `token` still refreshes.
    static func refreshes(_ provider: AppleIDProvider, _ token: String) -> Bool {
        provider.tokenResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: provider.clock.now),
            "grant_type": "refresh_token", "refresh_token": token,
        ])).failure == nil
    }

    /// `json` without its `"serial"` members, wherever they stand among their objects' keys (the encoder's
    /// key order is not fixed from one process to the next).
    static func withoutSerials(_ json: String) -> String {
        json.replacing(/,"serial":-?\d+|"serial":-?\d+,?/, with: "")
    }

    /// Reads the world back from `store` with a cap of two, signs in once more, and tells which of
    /// `tokens`, then the new one, still refresh.
    static func refreshingAfterOneMore(readingBack store: DictionaryStore, _ tokens: [String]) async throws -> [Bool] {
        let provider = try capOfTwo()
        #expect(try await provider.keepState(in: store) == true)
        let newest = try refreshToken(provider)
        return (tokens + [newest]).map { refreshes(provider, $0) }
    }

    @Test("a world read back from its store revokes the oldest token first, not the one written last")
    func capAfterReadingBack() async throws {
        let store = DictionaryStore()
        let first = try Self.capOfTwo()
        try await first.keepState(in: store)
        let tokens = [try Self.refreshToken(first), try Self.refreshToken(first)]
        try await first.waitUntilSaved()
        #expect(!store.rows.contains { $0.section == "refreshTokensByOwner" })

        #expect(try await Self.refreshingAfterOneMore(readingBack: store, tokens) == [false, true, true])
    }

    @Test("grants stored with the index's list, and no place of their own, keep that list's order")
    func storedListOrder() async throws {
        let store = DictionaryStore()
        let first = try Self.capOfTwo()
        try await first.keepState(in: store)
        var tokens = [try Self.refreshToken(first)]
        // A later sign-in, so that ordering by sign-in time would revoke the other token than the list.
        try first.advanceClock(by: 1)
        tokens.append(try Self.refreshToken(first))
        try await first.waitUntilSaved()
        // As an earlier version stored them: grants without a serial, and the index as a row whose list
        // puts the newer token first.
        let rows = store.rows.map { row -> WorldRow in
            guard row.section == "refreshGrants" else { return row }
            return WorldRow(section: row.section, key: row.key, value: Self.withoutSerials(row.value))
        }
        #expect(rows.filter { $0.section == "refreshGrants" }.allSatisfy { !$0.value.contains("serial") && $0.value.hasPrefix("{\"") })
        let owner = String(decoding: try JSONEncoder().encode(
            RefreshTokenOwner(consent: ConsentKey(personaID: "jane", groupID: "com.example.app"), clientID: Fixtures.webClient)), as: UTF8.self)
        let list = String(decoding: try JSONEncoder().encode([tokens[1], tokens[0]]), as: UTF8.self)
        let earlier = DictionaryStore()
        try await earlier.write(rows.map { WorldRowChange(section: $0.section, key: $0.key, value: $0.value) }
            + [WorldRowChange(section: "refreshTokensByOwner", key: owner, value: list)], replacingAll: true)

        #expect(try await Self.refreshingAfterOneMore(readingBack: earlier, tokens) == [true, false, true])
    }

    @Test("a snapshot taken before grants carried their serial, restored into a world kept in a store, is stored with serials in its index's order")
    func snapshotWithoutSerials() async throws {
        let source = try Self.capOfTwo()
        var tokens = [try Self.refreshToken(source)]
        try source.advanceClock(by: 1)
        tokens.append(try Self.refreshToken(source))
        // As an earlier version took it: grants without a serial, and an index whose list (here) puts
        // the later token first, against the sign-in times.
        let taken = Self.withoutSerials(String(decoding: try JSONEncoder().encode(source.snapshot()), as: UTF8.self))
        let listed = #"["\#(tokens[0])","\#(tokens[1])"]"#
        #expect(!taken.contains("serial") && taken.contains(listed))
        let snapshot = taken.replacingOccurrences(of: listed, with: #"["\#(tokens[1])","\#(tokens[0])"]"#)
        let store = DictionaryStore()
        let target = try Self.capOfTwo()
        try await target.keepState(in: store)
        target.restore(try JSONDecoder().decode(WorldSnapshot.self, from: Data(snapshot.utf8)))
        try await target.waitUntilSaved()
        let grants = store.rows.filter { $0.section == "refreshGrants" }
        #expect(grants.count == 2 && grants.allSatisfy { $0.value.contains(#""serial":-"#) })
        #expect(try await Self.refreshingAfterOneMore(readingBack: store, tokens) == [true, false, true])
    }

    @Test("a server sharing the world revokes the oldest of the tokens the other issued")
    func capAcrossSharedServers() async throws {
        let store = SharedStoreTests.VersionedStore()
        let first = try Self.capOfTwo()
        let second = try Self.capOfTwo()
        #expect(try await first.shareState(in: store) == false)
        #expect(try await second.shareState(in: store) == true)
        let shared = SharedStoreTests()
        var tokens: [String] = []
        for _ in 0..<2 { tokens.append(try await shared.request(first) { try Self.refreshToken(first) }) }
        tokens.append(try await shared.request(second) { try Self.refreshToken(second) })
        let refreshing = try await shared.request(second) { tokens.map { Self.refreshes(second, $0) } }
        #expect(refreshing == [false, true, true])
        let atFirst = try await shared.request(first) { tokens.map { Self.refreshes(first, $0) } }
        #expect(atFirst == [false, true, true])
    }
}
