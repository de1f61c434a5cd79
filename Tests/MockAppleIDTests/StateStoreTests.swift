import Foundation
@testable import MockAppleID
@testable import MockAppleIDStorage
import Synchronization
import Testing

/// Keeping a world in a ``WorldStore``: which rows each change writes, what a new provider restores
/// from them, and what happens when the store fails. The store here keeps its rows in a dictionary;
/// the SQLite state file is exercised by the storage and server tests and end to end.
@Suite("state kept in a store")
struct StateStoreTests {
    /// A store holding its rows in memory, recording each write.
    final class DictionaryStore: WorldStore {
        struct Contents {
            var scenario: String?
            var rows: [String: WorldRow] = [:]
            var writes: [(changes: [WorldRowChange], replacingAll: Bool)] = []
            /// Writes from this one on fail.
            var failFromWrite: Int?
        }

        let name = "dictionary store"
        let contents = Mutex(Contents())

        func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow] {
            try contents.withLock { (contents: inout Contents) throws(StateStoreError) -> [WorldRow] in
                if let owner = contents.scenario, owner != scenario { throw StateStoreError("belongs to \(owner)") }
                contents.scenario = scenario
                return Array(contents.rows.values)
            }
        }

        func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) {
            try contents.withLock { (contents: inout Contents) throws(StateStoreError) in
                if let failFrom = contents.failFromWrite, contents.writes.count >= failFrom { throw StateStoreError("\(name): disk full") }
                contents.writes.append((changes, replacingAll))
                if replacingAll { contents.rows = [:] }
                for change in changes {
                    let id = change.section + "/" + change.key
                    contents.rows[id] = change.value.map { WorldRow(section: change.section, key: change.key, value: $0) }
                }
            }
        }

        var rows: [WorldRow] { contents.withLock { Array($0.rows.values) } }
        var writes: [(changes: [WorldRowChange], replacingAll: Bool)] { contents.withLock { $0.writes } }
    }

    /// A store whose writes wait while its gate is shut.
    final class GatedStore: WorldStore {
        let inner = DictionaryStore()
        private let gate = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((true, []))

        var name: String { inner.name }
        var waitingWrites: Int { gate.withLock { $0.waiting.count } }

        func setOpen(_ open: Bool) {
            let released = gate.withLock { gate -> [CheckedContinuation<Void, Never>] in
                gate.open = open
                defer { if open { gate.waiting = [] } }
                return open ? gate.waiting : []
            }
            for continuation in released { continuation.resume() }
        }

        func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow] { try await inner.loadRows(scenario: scenario) }

        func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let open = gate.withLock { gate -> Bool in
                    if !gate.open { gate.waiting.append(continuation) }
                    return gate.open
                }
                if open { continuation.resume() }
            }
            try await inner.write(changes, replacingAll: replacingAll)
        }

        /// Polls until a write waits at the gate (deadline 10 s).
        func untilAWriteWaits() async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while waitingWrites == 0 {
                guard ContinuousClock.now < deadline else { throw StateStoreError("no write reached the gate") }
                await Task.yield()
            }
        }
    }

    @Test("changes made while a write is in flight are written together in the next one, and every waiter is told")
    func groupCommit() async throws {
        let provider = try Fixtures.provider()
        let store = GatedStore()
        try await provider.keepState(in: store)
        let filled = store.inner.writes.count
        store.setOpen(false)
        try provider.createPersona(Persona(id: "p0", firstName: "P", lastName: "0", email: nil))
        try await store.untilAWriteWaits()
        for index in 1...10 { try provider.createPersona(Persona(id: "p\(index)", firstName: "P", lastName: "\(index)", email: nil)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 1...10 { group.addTask { try await provider.waitUntilSaved() } }
            store.setOpen(true)
            try await group.waitForAll()
        }
        #expect(store.inner.writes.count == filled + 2)
        let saved = try #require(store.inner.rows.first { $0.section == "personas" }?.value)
        #expect((0...10).allSatisfy { saved.contains(#""id":"p\#($0)""#) })

        store.setOpen(false)
        try provider.createPersona(Persona(id: "late", firstName: "L", lastName: "Ate", email: nil))
        try await store.untilAWriteWaits()
        provider.reset()
        store.setOpen(true)
        try await provider.waitUntilSaved()
        #expect(store.inner.writes.last?.replacingAll == true)
        let restored = try Fixtures.provider()
        try await restored.keepState(in: store.inner)
        #expect(restored.persona("late") == nil && restored.persona("p0") == nil)
    }

    @Test("a batch writes each row once, with its last change: whole sections, text keys and structured keys alike")
    func batchKeepsLastChange() throws {
        let jane = ConsentKey(personaID: "jane", groupID: "g")
        let john = ConsentKey(personaID: "john", groupID: "g")
        let changes = try PendingRow.encodedLatest([
            PendingRow(.purgeThreshold, value: 1), PendingRow(.consents, key: jane, value: "a"), PendingRow(.codes, key: "c", value: "x"),
            PendingRow(.consents, key: john, value: "b"), PendingRow(.consents, key: jane, value: "c"), PendingRow(.purgeThreshold, value: 2),
            PendingRow(.codes, key: "c", value: nil),
        ])
        #expect(changes.map { "\($0.section) \($0.key) \($0.value ?? "removed")" } == [
            #"consents {"groupID":"g","personaID":"john"} "b""#, #"consents {"groupID":"g","personaID":"jane"} "c""#,
            "purgeThreshold  2", "codes c removed",
        ])
    }

    @Test("a change queued after the writer closed is not reported saved, and a request holding it is told")
    func closedWriter() async throws {
        let store = DictionaryStore()
        let writer = StateWriter(store: store)
        writer.start()
        writer.enqueue([PendingRow(.purgeThreshold, value: 20_000)])
        try await writer.close()
        #expect(store.rows.contains { $0.section == "purgeThreshold" && $0.value == "20000" })
        writer.enqueue([PendingRow(.purgeThreshold, value: 30_000)])
        let failure = await #expect(throws: StateStoreError.self) { try await writer.waitUntilSaved() }
        #expect(failure?.message == "dictionary store: the world is no longer kept there; a change was not saved")
        #expect(store.writes.count == 1)

        let provider = try Fixtures.provider()
        try await provider.keepState(in: DictionaryStore())
        let ticket = try await provider.world.beginRequest()
        try await provider.stopKeepingState()
        try provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        try await ticket.waitUntilSaved()
        ticket.ended()
        try await provider.waitUntilSaved()
    }

    @Test("an empty store gets the whole world in one batch; a sign-in then writes only the rows it touched")
    func rowsPerChange() async throws {
        let provider = try Fixtures.provider()
        let store = DictionaryStore()
        #expect(try await provider.keepState(in: store) == false)
        let first = try #require(store.writes.first)
        let wholeSections = ["directory", "personas", "deletedAccounts", "accountGenerations", "autoApprove", "keys", "faults",
                             "outbox", "relay", "transfers", "purgeThreshold", "clock"]
        #expect(first.replacingAll && Set(first.changes.map(\.section)) == Set(wholeSections))

        let code = try #require(try provider.signIn("jane")["code"])
        try await provider.waitUntilSaved()
        #expect(store.writes.count == 3)
        #expect(store.writes[1].changes.map(\.section) == ["timeline"])
        #expect(Set(store.writes[2].changes.map(\.section)) == ["consents", "codes"])
        #expect(store.writes[2].changes.first { $0.section == "codes" }?.key == code)

        _ = try provider.exchange(code).get()
        try await provider.waitUntilSaved()
        #expect(Set(store.writes[3].changes.map(\.section)) == ["codes", "accessGrants", "refreshGrants"])
        #expect(store.writes[3].changes.allSatisfy { !$0.key.isEmpty && $0.value != nil })
    }

    @Test("relay mail and notification deliveries are written one row per message or delivery, and come back in order")
    func listRows() async throws {
        let store = DictionaryStore()
        let provider = try NotificationTests.provider()
        try await provider.keepState(in: store)
        let address = try RelayTests.johnsAddress(provider)
        for _ in 0..<3 { #expect(provider.deliverRelayMail(RelayTests.mail(address)).delivered.count == 1) }
        try await provider.waitUntilSaved()
        let ids = provider.relayMessages().map(\.id)
        #expect(provider.deliverRelayMail(RelayTests.mail(address)).delivered.count == 1)
        try await provider.waitUntilSaved()
        let last = try #require(store.writes.last)
        let newest = try #require(provider.relayMessages().last?.id)
        #expect(last.changes.filter { $0.section == "relayMessages" }.map(\.key) == [newest])
        #expect(last.changes.first { $0.section == "relay" }?.value?.contains(#""messages":[]"#) == true)
        try provider.notify(.emailDisabled, personaID: "john", app: NotificationTests.group)
        try provider.notify(.emailEnabled, personaID: "john", app: NotificationTests.group)
        try await provider.waitUntilSaved()
        #expect(store.rows.filter { $0.section == "outboxDeliveries" }.count == 2)

        let restored = try Fixtures.provider()
        try await restored.keepState(in: store)
        #expect(restored.relayMessages().map(\.id) == ids + [newest])
        #expect(restored.relayMessages() == provider.relayMessages())
        #expect(restored.notificationDeliveries().map(\.notification.type) == [.emailDisabled, .emailEnabled])
        #expect(restored.deliverRelayMail(RelayTests.mail(address)).delivered.count == 1)
        #expect(restored.relayMessages().count == 5)
    }

    @Test("a new provider on the same store gets back personas, consents, codes, tokens, keys, faults, relay mail, deliveries and the clock")
    func roundTrip() async throws {
        let store = DictionaryStore()
        let first = try NotificationTests.provider()
        try await first.keepState(in: store)
        let pendingCode = try #require(try first.signIn("jane")["code"])
        let johnCode = try #require(try first.signIn("john")["code"])
        let refreshToken = try #require(try first.exchange(johnCode).get()["refresh_token"]?.stringValue)
        try first.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: "kim@example.com"))
        try first.queueFault(Fault(.idToken(.expired)))
        try first.changeKeys(.activate(kid: "mRS1a8XkPq"))
        let address = try first.relayAddress(personaID: "john", app: Fixtures.webClient)
        #expect(first.deliverRelayMail(RelayTests.mail(address)).delivered.count == 1)
        try first.notify(.emailDisabled, personaID: "john", app: NotificationTests.group)
        try first.setClock(to: Fixtures.start.addingTimeInterval(90), frozen: true)
        try await first.waitUntilSaved()

        let second = try Fixtures.provider()
        #expect(try await second.keepState(in: store) == true)
        #expect(second.persona("kim")?.email == "kim@example.com")
        #expect(second.consent(personaID: "john", clientID: Fixtures.webClient)?.emailChoice == .hide)
        #expect(second.faults().count == 1)
        #expect(second.keyRing().activeKID == "mRS1a8XkPq")
        #expect(second.relayMessages(personaID: "john").count == 1)
        #expect(second.notificationDeliveries().map(\.notification.type) == [.emailDisabled])
        #expect(second.clock.now == Fixtures.start.addingTimeInterval(90) && second.clock.isFrozen)
        #expect(second.nextNotificationDue() != nil)
        second.clearFaults()
        #expect(try second.exchange(pendingCode).get()["id_token"] != nil)
        let refreshed = second.tokenResult(Fixtures.form([
            "client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: second.clock.now),
            "grant_type": "refresh_token", "refresh_token": refreshToken,
        ]))
        #expect(refreshed.failure == nil)
    }

    @Test("a revocation removes the consent's rows, and reset replaces the whole store")
    func removalsAndReset() async throws {
        let provider = try Fixtures.provider()
        let store = DictionaryStore()
        try await provider.keepState(in: store)
        _ = try provider.exchange(try #require(try provider.signIn("jane")["code"])).get()
        try await provider.waitUntilSaved()
        #expect(store.rows.contains { $0.section == "refreshGrants" })
        try provider.revokeConsent(personaID: "jane", clientID: Fixtures.webClient)
        try await provider.waitUntilSaved()
        #expect(!store.rows.contains { ["consents", "codes", "refreshGrants", "accessGrants", "refreshTokensByOwner"].contains($0.section) })

        try provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        provider.reset()
        try await provider.waitUntilSaved()
        #expect(store.writes.last?.replacingAll == true)
        let restored = try Fixtures.provider()
        try await restored.keepState(in: store)
        #expect(restored.persona("kim") == nil)
    }

    @Test("a loaded timeline's progress survives: the next provider goes on from the step after the last one run")
    func timelineProgress() async throws {
        let store = DictionaryStore()
        let first = try Fixtures.provider()
        try await first.keepState(in: store)
        let yaml = """
            timeline:
              - {do: signIn, persona: jane, client: com.example.web}
              - {do: advanceClock, seconds: 60}
              - {do: signIn, persona: john, client: com.example.web}
            """
        let timeline = try Timeline.parse(yaml: yaml, file: "t.yaml", directory: first.directory, resources: EmbeddedResources(files: [:]))
        first.timeline.load(timeline, origin: .text(yaml: yaml, file: "t.yaml", files: [:]))
        #expect(first.timeline.step(first)?.passed == true)
        try await first.waitUntilSaved()

        let second = try Fixtures.provider()
        try await second.keepState(in: store)
        #expect(second.timeline.position == (steps: 3, done: 1))
        #expect(second.timeline.outcomes.count == 1)
        #expect(second.timeline.runAll(second).map(\.passed) == [true, true])
        #expect(second.consent(personaID: "john", clientID: Fixtures.webClient) != nil)

        second.timeline.load(timeline)
        try await second.waitUntilSaved()
        let third = try Fixtures.provider()
        try await third.keepState(in: store)
        #expect(third.timeline.position == (steps: 0, done: 0), "a timeline built in Swift is not kept; the scenario's (none) is loaded")
    }

    @Test("a store of another scenario is refused")
    func otherScenario() async throws {
        let store = DictionaryStore()
        try await Fixtures.provider().keepState(in: store)
        let other = try Fixtures.provider { $0.name = "other" }
        await #expect(throws: StateStoreError.self) { try await other.keepState(in: store) }
    }

    @Test("after a failed write every wait fails, naming the store, and later changes are not reported saved")
    func failedWrite() async throws {
        let provider = try Fixtures.provider()
        let store = DictionaryStore()
        try await provider.keepState(in: store)
        store.contents.withLock { $0.failFromWrite = 2 }
        try provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        let failure = await #expect(throws: StateStoreError.self) { try await provider.waitUntilSaved() }
        #expect(failure?.message.contains("dictionary store: disk full") == true)
        try provider.deleteAccount(personaID: "kim")
        await #expect(throws: StateStoreError.self) { try await provider.waitUntilSaved() }
        #expect(store.writes.count == 2)
    }

    @Test("a row this version cannot read is an error naming it, not a silent reset")
    func unreadableRow() async throws {
        let store = DictionaryStore()
        try await Fixtures.provider().keepState(in: store)
        try await store.write([WorldRowChange(section: "personas", key: "", value: "{\"not\": \"a list\"}")], replacingAll: false)
        let failure = await #expect(throws: StateStoreError.self) { try await Fixtures.provider().keepState(in: store) }
        #expect(failure?.message.hasPrefix("dictionary store: row personas cannot be read") == true)
        try await store.write([WorldRowChange(section: "later", key: "", value: "{}")], replacingAll: true)
        let unknown = await #expect(throws: StateStoreError.self) { try await Fixtures.provider().keepState(in: store) }
        #expect(unknown?.message.contains("a section this version does not know: later") == true)
    }

    @Test("a per-app forwarding setting is kept in a store and ends with the account")
    func forwardingKept() async throws {
        let store = DictionaryStore()
        let first = try Fixtures.provider()
        try await first.keepState(in: store)
        let (mock, other) = try RelayLifecycleTests.twoTeams(first)
        try first.setRelayForwarding(false, personaID: "john", app: "org.other.web")
        try await first.waitUntilSaved()
        let second = try Fixtures.provider()
        #expect(try await second.keepState(in: store))
        #expect(second.relayAddresses().map { "\($0.address) \($0.forwarding)" }.sorted() == ["\(mock) true", "\(other) false"].sorted())
        try second.deleteAccount(personaID: "john")
        #expect(second.world.read { $0.relayForwarding.count } == 0)
    }
}
