import Foundation
@testable import MockAppleID
import Synchronization
import Testing

/// The seam the core offers storage, used by a keeper of the test's own rather than `MockAppleIDStorage`'s: every
/// change reaches the keeper as rows, a new provider restored from them has the world, a shared keeper catches its
/// world up through the ``KeptWorld`` it was given, and no longer once the world stopped being kept.
@Suite("a keeper of one's own")
struct KeeperSeamTests {
    /// Keeps the rows it is handed in memory, by section and key, as a store would.
    final class RowKeeper: WorldKeeper, SaveTicket {
        private let kept = Mutex<[String: WorldRowChange]>([:])
        /// The world it keeps, when it was attached as a shared world's keeper.
        let world: KeptWorld?

        init(world: KeptWorld? = nil) { self.world = world }

        var keepsChanges: Bool { true }
        var notificationLease: (any NotificationLease)? { nil }

        func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool {
            let changes = try! PendingRow.encodedLatest(rows)
            kept.withLock { kept in
                if replacingAll { kept = [:] }
                for change in changes { kept[change.section + "\u{0}" + change.key] = change.value == nil ? nil : change }
            }
            return false
        }

        func keepBeside(_ row: PendingRow) { _ = keep([row], replacingAll: false) }
        func beginRequest() -> any SaveTicket { self }
        func hold<T: Sendable>(_ body: () -> T) -> T { body() }
        func waitUntilSaved() {}
        func ended() {}
        func close() {}

        /// Every row kept, as a store gives them back.
        var rows: [WorldRow] {
            kept.withLock { $0.values.compactMap { change in change.value.map { WorldRow(section: change.section, key: change.key, value: $0) } } }
        }
    }

    static let kim = Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: "kim@example.com")

    @Test("every change reaches the keeper as rows, and a provider restored from them has the world and the clock")
    func restoredFromRows() async throws {
        let first = try Fixtures.provider()
        let keeper = RowKeeper()
        #expect(try await first.keepState(with: keeper, restoring: [], storeName: "rows") == false)
        #expect(keeper.rows.contains { $0.section == "timeline" })
        try first.createPersona(Self.kim)
        try first.advanceClock(by: 600)
        _ = try first.signIn("kim")

        let second = try Fixtures.provider()
        #expect(second.persona("kim") == nil)
        #expect(try await second.keepState(with: RowKeeper(), restoring: keeper.rows, storeName: "rows") == true)
        #expect(second.persona("kim")?.email == "kim@example.com")
        #expect(second.consent(personaID: "kim", clientID: Fixtures.webClient) != nil)
        #expect(second.clock.now == Fixtures.start.addingTimeInterval(600))

        let unreadable = [WorldRow(section: "personas", key: "kim", value: "not json")]
        let refusal = await #expect(throws: StateStoreError.self) {
            try await Fixtures.provider().keepState(with: RowKeeper(), restoring: unreadable, storeName: "rows")
        }
        #expect(refusal?.message.hasPrefix("rows: ") == true)
    }

    @Test("a shared world's keeper catches it up through the world it was given, and cannot once the world is no longer kept")
    func caughtUp() async throws {
        let writer = try Fixtures.provider()
        let store = RowKeeper()
        try await writer.keepState(with: store, restoring: [], storeName: "rows")
        try writer.createPersona(Self.kim)
        // What a shared store holds: the world without the timeline's progress, which stays with each server.
        func stored(section: String? = nil) -> [WorldRowChange] {
            store.rows.filter { $0.section != "timeline" && (section == nil || $0.section == section) }
                .map { WorldRowChange(section: $0.section, key: $0.key, value: $0.value) }
        }

        let reader = try Fixtures.provider()
        let keeper = reader.shareState { RowKeeper(world: $0) }
        #expect(reader.world.isShared)
        let world = try #require(keeper.world)
        try world.catchUp(SharedChanges(rows: stored(), version: 1, complete: true), storeName: "rows")
        #expect(reader.persona("kim")?.email == "kim@example.com")
        try writer.createPersona(Persona(id: "lee", firstName: "Lee", lastName: "Kim", email: nil))
        try world.catchUp(SharedChanges(rows: stored(section: "personas"), version: 2, complete: false), storeName: "rows")
        #expect(reader.persona("lee") != nil)

        try await reader.stopKeepingState()
        try writer.createPersona(Persona(id: "max", firstName: "Max", lastName: "Lee", email: nil))
        let late = #expect(throws: StateStoreError.self) {
            try world.catchUp(SharedChanges(rows: stored(section: "personas"), version: 3, complete: false), storeName: "rows")
        }
        #expect(late?.message == "rows: the world is no longer kept there")
        #expect(reader.persona("max") == nil)
    }
}
