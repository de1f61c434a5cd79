import Foundation
@testable import MockAppleID
@testable import MockAppleIDStorage
import Synchronization
import Testing

/// Several providers sharing one world through a ``SharedWorldStore``, as replicas of a server share a
/// PostgreSQL database: what one changes the other sees at its next request, removals included; parallel
/// requests share one hold; a failed write fails its requests and the next hold reloads the whole world.
/// The store here keeps versioned rows in memory; PostgreSQL is exercised end to end.
@Suite("a world shared by several servers")
struct SharedStoreTests {
    /// Rows with the version that wrote them (a removed row keeps its version, without a value), and
    /// one lock that holds are taken under, as the PostgreSQL store's advisory lock.
    final class VersionedStore: SharedWorldStore, NotificationLease {
        struct Contents {
            var scenario: String?
            var rows: [String: (change: WorldRowChange, version: Int64)] = [:]
            var version: Int64 = 0
            var held = false
            /// While shut, holds wait before they take the lock.
            var gateShut = false
            var gated: [CheckedContinuation<Void, Never>] = []
            var waiting: [CheckedContinuation<Void, Never>] = []
            var acquires = 0
            /// Releases that write from this one on fail.
            var failFromWrite: Int?
            var writes = 0
            /// Versions older than this get the whole world.
            var removalsKeptAfter: Int64 = 0
            /// Set: the store says it cannot be used now (as a database being tried again does).
            var unavailable: StateStoreError?
        }

        let name = "versioned store"
        let contents = Mutex(Contents())
        var unavailable: StateStoreError? { contents.withLock { $0.unavailable } }

        var acquires: Int { contents.withLock { $0.acquires } }
        var gatedHolds: Int { contents.withLock { $0.gated.count } }

        func setGate(shut: Bool) {
            let released = contents.withLock { contents in
                contents.gateShut = shut
                defer { if !shut { contents.gated = [] } }
                return shut ? [] : contents.gated
            }
            for continuation in released { continuation.resume() }
        }

        func acquire(after version: Int64, scenario: String) async throws(StateStoreError) -> SharedChanges {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let open = contents.withLock { contents -> Bool in
                    if contents.gateShut { contents.gated.append(continuation) }
                    return !contents.gateShut
                }
                if open { continuation.resume() }
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let free = contents.withLock { contents -> Bool in
                    guard contents.held else {
                        contents.held = true
                        return true
                    }
                    contents.waiting.append(continuation)
                    return false
                }
                if free { continuation.resume() }
            }
            return try contents.withLock { (contents: inout Contents) throws(StateStoreError) -> SharedChanges in
                contents.acquires += 1
                if let owner = contents.scenario, owner != scenario {
                    handOver(&contents)
                    throw StateStoreError("belongs to \(owner)")
                }
                contents.scenario = scenario
                let complete = version < 0 || version < contents.removalsKeptAfter || version > contents.version
                let rows = contents.rows.values
                    .filter { complete ? $0.change.value != nil : $0.version > version }
                    .sorted { $0.version < $1.version }
                    .map(\.change)
                return SharedChanges(rows: rows, version: contents.version, complete: complete)
            }
        }

        func release(writing changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) -> Int64 {
            try contents.withLock { (contents: inout Contents) throws(StateStoreError) -> Int64 in
                defer { handOver(&contents) }
                guard !changes.isEmpty || replacingAll else { return contents.version }
                if let failFrom = contents.failFromWrite, contents.writes >= failFrom { throw StateStoreError("\(name): connection lost") }
                contents.writes += 1
                contents.version += 1
                if replacingAll {
                    for (id, row) in contents.rows where row.change.value != nil {
                        contents.rows[id] = (WorldRowChange(section: row.change.section, key: row.change.key, value: nil), contents.version)
                    }
                }
                for change in changes { contents.rows[change.section + "/" + change.key] = (change, contents.version) }
                return contents.version
            }
        }

        /// The next waiting hold gets the lock.
        private func handOver(_ contents: inout Contents) {
            if contents.waiting.isEmpty {
                contents.held = false
            } else {
                contents.waiting.removeFirst().resume()
            }
        }

        func lead() async {}
        func stillLeading() async -> Bool { true }
    }

    /// Runs `body` as one request of `provider`'s (``AppleIDProvider/perform(_:_:)``): in a hold of the shared world,
    /// answering once saved.
    @discardableResult
    func request<T: Sendable>(_ provider: AppleIDProvider, _ body: () throws -> T) async throws -> T {
        try await provider.perform(.request) { () throws -> T in try body() }.get()
    }

    func sharingPair() async throws -> (AppleIDProvider, AppleIDProvider, VersionedStore) {
        let store = VersionedStore()
        let first = try Fixtures.provider()
        let second = try Fixtures.provider()
        #expect(try await first.shareState(in: store) == false)
        #expect(try await second.shareState(in: store) == true)
        return (first, second, store)
    }

    @Test("a code, a persona, a revocation and the clock made at one server are seen at the other's next request")
    func changesPropagate() async throws {
        let (first, second, _) = try await sharingPair()
        let code = try #require(try await request(first) { try first.signIn("jane")["code"] })
        try await request(first) { try first.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil)) }
        try await request(first) { try first.advanceClock(by: 60) }

        let tokens = try await request(second) { try second.exchange(code).get() }
        #expect(second.persona("kim") != nil)
        #expect(second.clock.now == Fixtures.start.addingTimeInterval(60))
        // The code is gone at the first server too (its row was removed at the second).
        let replay = try await request(first) { first.exchange(code) }
        #expect(replay.failure?.code == .invalidGrant)

        let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
        try await request(second) {
            _ = try second.revokeResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: second.clock.now),
                                                        "token": refreshToken, "token_type_hint": "refresh_token"])).get()
        }
        let refresh = try await request(first) {
            first.tokenResult(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: first.clock.now),
                                             "grant_type": "refresh_token", "refresh_token": refreshToken]))
        }
        #expect(refresh.failure?.code == .invalidGrant)
    }

    @Test("requests that wait while the world is being taken all join the hold, and one write saves them all")
    func parallelRequestsShareAHold() async throws {
        let (first, _, store) = try await sharingPair()
        let (before, writesBefore) = (store.acquires, store.contents.withLock { $0.writes })
        store.setGate(shut: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await request(first) { try first.createPersona(Persona(id: "p\(index)", firstName: "P", lastName: "\(index)", email: nil)) }
                }
            }
            // One request opens the hold and waits at the gate; the seven others wait for it.
            let deadline = ContinuousClock.now + .seconds(10)
            while store.gatedHolds < 1 || ((first.world.keeper as? SharedKeeper)?.access.waitingCount ?? 0) < 7 {
                guard ContinuousClock.now < deadline else { throw StateStoreError("the requests did not all wait for the hold") }
                await Task.yield()
            }
            store.setGate(shut: false)
            try await group.waitForAll()
        }
        #expect(store.acquires - before == 1)
        #expect(store.contents.withLock { $0.writes } - writesBefore == 1)
        #expect(store.contents.withLock { $0.rows["personas/"]?.change.value?.contains(#""id":"p7""#) } == true)
    }

    @Test("a notification queued, and a reset, at one server are caught up by the other")
    func listsAndResetPropagate() async throws {
        let (first, second, _) = try await sharingPair()
        try await request(first) { _ = try first.signIn("jane") }
        try await request(first) { try first.setNotificationURL("https://rp.example/apple", app: "com.example.app") }
        try await request(first) { try first.revokeConsent(personaID: "jane", clientID: Fixtures.webClient) }
        let queued = first.world.read { $0.outbox.deliveries.entries.map(\.id) }
        #expect(queued.count == 1)
        try await request(second) {}
        #expect(second.world.read { $0.outbox.deliveries.entries.map(\.id) } == queued)

        try await request(second) { second.reset() }
        try await request(first) {}
        #expect(first.world.read { ($0.outbox.deliveries.count, $0.consents.count) } == (0, 0))
        #expect(first.persona("jane") != nil)
    }

    @Test("a failed write fails its requests, and the next hold reloads the world the store holds")
    func failedWriteReloads() async throws {
        let (first, second, store) = try await sharingPair()
        store.contents.withLock { $0.failFromWrite = $0.writes }
        await #expect(throws: StateStoreError.self) {
            try await request(first) { try first.createPersona(Persona(id: "lost", firstName: "L", lastName: "Ost", email: nil)) }
        }
        #expect(first.persona("lost") != nil)  // in memory only, until the next hold reloads
        store.contents.withLock { $0.failFromWrite = nil }
        try await request(first) {}
        #expect(first.persona("lost") == nil)
        try await request(second) { try second.createPersona(Persona(id: "kept", firstName: "K", lastName: "Ept", email: nil)) }
        try await request(first) {}
        #expect(first.persona("kept") != nil)
    }

    @Test("while the store says it cannot be used, requests are refused at once with its reason, without a hold; then served again")
    func unavailableStoreRefusesAtOnce() async throws {
        let (first, _, store) = try await sharingPair()
        let before = store.acquires
        store.contents.withLock { $0.unavailable = StateStoreError("versioned store: cannot be reached (frozen)") }
        let refusal = await #expect(throws: StateStoreError.self) { try await request(first) {} }
        #expect(refusal?.message == "versioned store: cannot be reached (frozen)" && store.acquires == before)
        store.contents.withLock { $0.unavailable = nil }
        try await request(first) {}
        #expect(store.acquires == before + 1)
    }

    @Test("a server too far behind to catch up from removals reads the whole world; one of another scenario is refused")
    func wholeWorldAndScenario() async throws {
        let (first, second, store) = try await sharingPair()
        let code = try #require(try await request(first) { try first.signIn("jane")["code"] })
        _ = try await request(first) { try first.exchange(code).get() }
        try await request(second) {}
        #expect(second.world.read { ($0.consents.count, $0.codes.count, $0.refreshGrants.count) } == (1, 1, 1))
        try await request(first) { try first.revokeConsent(personaID: "jane", clientID: Fixtures.webClient) }
        // The store forgets the removals before the second server catches up: it reads the whole world.
        store.contents.withLock { $0.removalsKeptAfter = $0.version }
        try await request(second) {}
        #expect(second.world.read { ($0.consents.count, $0.codes.count, $0.refreshGrants.count) } == (0, 0, 0))

        let other = try Fixtures.provider { $0.name = "another" }
        let refusal = await #expect(throws: StateStoreError.self) { try await other.shareState(in: store) }
        #expect(refusal?.message == "belongs to \(first.scenario.name)")
    }
}
