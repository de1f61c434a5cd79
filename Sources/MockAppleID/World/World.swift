import Foundation
import Synchronization

/// The one owner of everything that changes in a provider: a ``WorldState`` behind one lock, the
/// ``EventLog`` its transitions append to, and the ``MockClock`` that stamps and schedules them.
///
/// A transition runs under the lock and appends its events in the same step, so the log's order is
/// the order in which the state changed. The notifications its events call for are queued in the
/// same step, so none is lost between a change and its delivery.
public final class World: Sendable {
    /// The world's clock: every expiry and every event's time.
    public let clock: MockClock
    /// Every change, in order.
    public let events: EventLog
    /// Rung when notifications were queued, made due or given a later attempt (a transition, a restore):
    /// the sender's cue to take what is due and to ask the clock to wake it for the next attempt.
    public let notificationsQueued = Doorbell()

    private struct Guarded: Sendable {
        var state: WorldState
        /// Where changes are saved, when the world is kept in a store.
        var writer: StateWriter?
        /// How this server holds the world, when it is kept in a store several servers share.
        var shared: SharedWorldAccess?
        /// The clock's mode as last queued for saving.
        var savedClock: MockClock.Mode?
    }

    private let guarded: Mutex<Guarded>
    /// Whether the world is shared with other servers, readable without the lock.
    private let shared = Atomic<Bool>(false)
    /// Whether the world is kept in a store (a file or a shared database), readable without the lock.
    private let keptInStore = Atomic<Bool>(false)
    /// Whether any fault is queued, readable without the lock: most requests have none to take.
    private let faultsQueued = Atomic<Bool>(false)
    /// Goes up whenever the signing keys may have changed, readable without the lock (for caches of what
    /// `/auth/keys` serves).
    private let keysGeneration = Atomic<Int>(0)
    /// Where ``reset()`` returns to.
    private let initialState: WorldState
    private let initialClock: MockClock.Mode

    /// How the notifications that transitions call for are queued.
    let notificationOptions: NotificationOptions

    init(initial: WorldState, clock: MockClock, events: EventLog = EventLog(), notificationOptions: NotificationOptions = NotificationOptions()) {
        self.notificationOptions = notificationOptions
        self.clock = clock
        self.events = events
        self.initialState = initial
        self.initialClock = clock.currentMode
        self.guarded = Mutex(Guarded(state: initial, writer: nil, shared: nil, savedClock: nil))
        self.faultsQueued.store(!initial.faults.faults.isEmpty, ordering: .relaxed)
    }

    /// Reads the state.
    public func read<T: Sendable>(_ body: (WorldState) -> T) -> T {
        guarded.withLock { body($0.state) }
    }

    /// Changes the state under the lock; the events `body` appends are logged at `now` in the same step.
    @discardableResult
    func transition<T: Sendable, E: Error>(
        at now: Date, _ body: (inout WorldState, inout [DomainEvent]) throws(E) -> T
    ) throws(E) -> T {
        try commit(at: now, body).value
    }

    /// Changes the state under the lock and returns what the change made: `body`'s value and the events
    /// logged (with the notifications they queued), at `now`, in the same step. The rows it changed go
    /// to the store in that step too.
    func commit<T: Sendable, E: Error>(
        at now: Date, _ body: (inout WorldState, inout [DomainEvent]) throws(E) -> T
    ) throws(E) -> Committed<T> {
        try guarded.withLock { (guarded: inout Guarded) throws(E) -> Committed<T> in
            var emitted: [DomainEvent] = []
            let keysBefore = guarded.state.keys.revision
            defer {
                if !emitted.isEmpty {
                    guarded.state.queueNotifications(for: emitted, at: now, options: notificationOptions, events: &emitted)
                    if emitted.contains(where: \.reschedulesNotifications) { notificationsQueued.ring() }
                }
                if guarded.state.keys.revision != keysBefore { keysGeneration.add(1, ordering: .relaxed) }
                faultsQueued.store(!guarded.state.faults.faults.isEmpty, ordering: .relaxed)
                if guarded.writer != nil || guarded.shared != nil { queueChanges(&guarded) }
                events.append(emitted, at: now)
            }
            let value = try body(&guarded.state, &emitted)
            return Committed(value: value, events: emitted)
        }
    }

    /// Queues the rows a transition changed (and the clock's mode, when it moved) for saving.
    private func queueChanges(_ guarded: inout Guarded) {
        var rows = guarded.state.takeChanges()
        let mode = clock.currentMode
        if mode != guarded.savedClock {
            rows.append(PendingRow.clock(mode))
            guarded.savedClock = mode
        }
        enqueue(rows, replacingAll: false, &guarded)
    }

    /// Hands rows to the writer or the shared hold. Rows changed outside a hold of a shared world
    /// (work the server did not run in one) are written by holding the world once more.
    private func enqueue(_ rows: [PendingRow], replacingAll: Bool, _ guarded: inout Guarded) {
        guarded.writer?.enqueue(rows, replacingAll: replacingAll)
        if let shared = guarded.shared, !rows.isEmpty || replacingAll, shared.enqueue(rows, replacingAll: replacingAll) {
            Task { _ = try? await self.hold {} }
        }
    }

    /// Replaces the state (a reset, a restore); a store then gets the whole new state in one batch.
    private func replace(_ guarded: inout Guarded, with state: WorldState) {
        guarded.state = state
        guarded.state.relayDomain = initialState.relayDomain
        // A state copied from a world kept in a store still tracks changes; only this world's store may want that.
        guarded.state.setTracking(false)
        // A snapshot taken before refresh grants carried their serial gets them here, so a store is given them.
        guarded.state.rebuildRefreshIndex()
        keysGeneration.add(1, ordering: .relaxed)
        notificationsQueued.ring()
        faultsQueued.store(!state.faults.faults.isEmpty, ordering: .relaxed)
        guard guarded.writer != nil || guarded.shared != nil else { return }
        guarded.state.setTracking(true)
        guarded.savedClock = clock.currentMode
        enqueue(guarded.state.allRows() + [PendingRow.clock(clock.currentMode)], replacingAll: true, &guarded)
    }

    /// Whether any fault is queued (without taking the lock).
    var hasQueuedFaults: Bool { faultsQueued.load(ordering: .relaxed) }

    /// Logs an event that changes nothing (a request's journal entry).
    func record(_ event: DomainEvent, at now: Date) {
        events.append([event], at: now)
    }

    /// Goes up whenever the signing keys may have changed (read without the lock).
    public var keysChangeCount: Int { keysGeneration.load(ordering: .relaxed) }

    /// Whether the world is kept in a store (a request then waits for its changes to be saved), read
    /// without the lock. Fixed once serving starts.
    public var isKeptInStore: Bool { keptInStore.load(ordering: .relaxed) }

    /// Back to the scenario's start in one step: its registrations, personas, keys, auto-approve and
    /// faults, the clock as it was made (scheduled work dropped), and an empty log.
    func reset() {
        guarded.withLock { guarded in
            clock.reset(to: initialClock)
            replace(&guarded, with: initialState)
            events.clear()
            events.append([.worldReset], at: clock.now)
        }
    }

    /// The whole state and the clock, for saving.
    public func snapshot() -> WorldSnapshot {
        guarded.withLock { WorldSnapshot(state: $0.state, clock: clock.currentMode) }
    }

    /// Replaces the state and the clock's mode with a snapshot's.
    func restore(_ snapshot: WorldSnapshot) {
        guarded.withLock { guarded in
            clock.reset(to: snapshot.clock)
            replace(&guarded, with: snapshot.state)
        }
    }

    // MARK: Keeping the world in a store

    /// Keeps the world in `store` from now on. A store that holds a world replaces this one (state
    /// and clock); an empty one is filled with this world before this returns. Call it before serving.
    /// Returns the rows of `sideSections` (kept beside the world by others, see ``save(_:section:)``),
    /// or nil when the store was empty.
    func attach(_ store: any WorldStore, scenario: String, sideSections: Set<String>) async throws(StateStoreError) -> [WorldRow]? {
        let rows = try await store.loadRows(scenario: scenario)
        let stored = try decode(rows, sideSections: sideSections, storeName: store.name)
        let writer = StateWriter(store: store)
        writer.start()
        guarded.withLock { guarded in
            if let clockMode = stored.clock { clock.reset(to: clockMode) }
            guarded.writer = writer
            keptInStore.store(true, ordering: .relaxed)
            if rows.isEmpty {
                replace(&guarded, with: guarded.state)
            } else {
                install(stored.state, &guarded)
            }
        }
        try await writer.waitUntilSaved()
        return rows.isEmpty ? nil : stored.side
    }

    /// A stored world: its state (on top of the scenario's start), its clock's mode, and the rows of `sideSections`.
    private func decode(_ rows: [WorldRow], sideSections: Set<String>, storeName: String) throws(StateStoreError)
        -> (state: WorldState, clock: MockClock.Mode?, side: [WorldRow]) {
        var restored = initialState
        var clockMode: MockClock.Mode?
        var sideRows: [WorldRow] = []
        var stateRows: [WorldRow] = []
        for row in rows {
            if sideSections.contains(row.section) {
                sideRows.append(row)
            } else if row.section == PendingRow.clockSection {
                clockMode = try decodeClock(row.value, storeName: storeName)
            } else {
                stateRows.append(row)
            }
        }
        do throws(StateStoreError) { try restored.restore(stateRows, decoder: JSONDecoder()) } catch {
            throw StateStoreError("\(storeName): \(error.message)")
        }
        return (restored, clockMode, sideRows)
    }

    private func decodeClock(_ value: String, storeName: String) throws(StateStoreError) -> MockClock.Mode {
        do { return try JSONDecoder().decode(MockClock.Mode.self, from: Data(value.utf8)) } catch {
            throw StateStoreError("\(storeName): the clock row cannot be read: \(error)")
        }
    }

    /// Makes a restored state the world's, tracking changes from now on.
    private func install(_ restored: WorldState, _ guarded: inout Guarded) {
        guarded.state = restored
        keysGeneration.add(1, ordering: .relaxed)
        notificationsQueued.ring()
        faultsQueued.store(!restored.faults.faults.isEmpty, ordering: .relaxed)
        guarded.state.setTracking(true)
        guarded.savedClock = clock.currentMode
    }

    // MARK: Sharing the world with other servers

    /// Keeps the world in `store`, shared with every server that uses it, from now on: holds it once
    /// to take the world the store holds (state and clock) or, when it holds none, to fill it with
    /// this one. Call it before serving. Returns whether the store held a world.
    func attach(shared store: any SharedWorldStore, scenario: String) async throws(StateStoreError) -> Bool {
        let access = SharedWorldAccess(store: store, scenario: scenario)
        shared.store(true, ordering: .relaxed)
        keptInStore.store(true, ordering: .relaxed)
        guarded.withLock { guarded in
            guarded.shared = access
            guarded.state.setTracking(true)
            guarded.savedClock = clock.currentMode
        }
        var held = false
        let member = try await access.enter { changes throws(StateStoreError) in
            held = !changes.rows.isEmpty
            try catchUp(changes, storeName: store.name)
        }
        try await access.leave(member)
        return held
    }

    /// A place in a hold of the shared world, caught up first when the hold is new.
    private func enter(_ shared: SharedWorldAccess) async throws(StateStoreError) -> SharedWorldAccess.Member {
        try await shared.enter { changes throws(StateStoreError) in try catchUp(changes, storeName: shared.store.name) }
    }

    /// Applies what other servers wrote since this copy last caught up; a complete set replaces the
    /// state (an empty one is a new store, which gets this world).
    private func catchUp(_ changes: SharedChanges, storeName: String) throws(StateStoreError) {
        if changes.complete {
            let rows = changes.rows.compactMap { change in change.value.map { WorldRow(section: change.section, key: change.key, value: $0) } }
            guard !rows.isEmpty else {
                guarded.withLock { replace(&$0, with: $0.state) }
                return
            }
            let stored = try decode(rows, sideSections: [], storeName: storeName)
            guarded.withLock { guarded in
                if let clockMode = stored.clock { clock.adopt(clockMode) }
                install(stored.state, &guarded)
            }
            return
        }
        guard !changes.rows.isEmpty else { return }
        let clockRow = changes.rows.last { $0.section == PendingRow.clockSection }?.value
        let clockMode = try clockRow.map { value throws(StateStoreError) in try decodeClock(value, storeName: storeName) }
        try guarded.withLock { (guarded: inout Guarded) throws(StateStoreError) in
            guarded.state.setTracking(false)
            defer { guarded.state.setTracking(true) }
            do throws(StateStoreError) { try guarded.state.apply(changes.rows, decoder: JSONDecoder()) } catch {
                throw StateStoreError("\(storeName): \(error.message)")
            }
            if changes.rows.contains(where: { $0.section == WorldState.CodingKeys.keys.rawValue }) {
                keysGeneration.add(1, ordering: .relaxed)
            }
            faultsQueued.store(!guarded.state.faults.faults.isEmpty, ordering: .relaxed)
            if let clockMode { clock.adopt(clockMode) }
            guarded.savedClock = clock.currentMode
        }
    }

    /// The store this world is shared through with other servers, if it is.
    public var sharedStore: (any SharedWorldStore)? { guarded.withLock { $0.shared?.store } }

    /// Requests waiting for the next hold of a shared world (for diagnostics and tests).
    var sharedWaiting: Int { guarded.withLock { $0.shared?.waitingCount ?? 0 } }

    /// Whether the world is shared with other servers (without taking the lock).
    public var isShared: Bool { shared.load(ordering: .relaxed) }

    /// Runs `body` while this server holds the world, when the world is shared with other servers
    /// (caught up first, and its changes written before this returns); otherwise simply runs it.
    /// Work that is not a request, such as scheduled work coming due, runs in one.
    public func hold<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T {
        guard let shared = guarded.withLock({ $0.shared }), SharedWorldAccess.Member.current == nil else { return body() }
        let member = try await enter(shared)
        let result = SharedWorldAccess.Member.$current.withValue(member) { body() }
        try await shared.leave(member)
        return result
    }

    /// Saves a value kept beside the world (a timeline's progress) as the one row of `section`, in
    /// order with the world's changes; nothing without a store.
    func save(_ value: some Encodable & Sendable, section: String) {
        guarded.withLock { guarded in
            guarded.writer?.enqueue([PendingRow(section: section, key: nil, value: value, removed: false)])
        }
    }

    /// A request is under way that will wait (``waitUntilSaved(_:)``) before it answers, as the HTTP
    /// server's requests do. With a state file, waiting requests write the changes themselves while
    /// any is under way, and no other thread is woken for them; with a shared store, this waits until
    /// the server holds the world (see ``SharedWorldStore``), which may throw. End it with
    /// ``requestEnded(_:)``.
    public func beginRequest() async throws(StateStoreError) -> SaveTicket {
        guard isKeptInStore else { return SaveTicket(kept: .memory) }
        let (writer, shared) = guarded.withLock { ($0.writer, $0.shared) }
        if let shared {
            return SaveTicket(kept: .shared(shared, try await enter(shared)))
        }
        guard let writer else { return SaveTicket(kept: .memory) }
        writer.requestStarted()
        return SaveTicket(kept: .file(writer))
    }

    /// Returns once every change made so far is saved by the writer the request started with (with a
    /// shared store: once the request's hold of the world ended with its changes written).
    public func waitUntilSaved(_ ticket: SaveTicket) async throws(StateStoreError) {
        switch ticket.kept {
        case .memory: return
        case let .file(writer): try await writer.waitUntilSaved()
        case let .shared(access, member): try await access.leave(member)
        }
    }

    /// The request ``beginRequest()`` announced has answered.
    public func requestEnded(_ ticket: SaveTicket) {
        switch ticket.kept {
        case .memory: return
        case let .file(writer): writer.requestEnded()
        case let .shared(access, member): access.leaveWithoutWaiting(member)
        }
    }

    /// Returns once every change made so far is saved (at once when the world is not kept in a store;
    /// a shared world is held once more to write what is pending).
    public func waitUntilSaved() async throws(StateStoreError) {
        let (writer, shared) = guarded.withLock { ($0.writer, $0.shared) }
        // Inside a hold, the hold's end is the save: waiting for it here would wait for ever.
        if shared != nil, SharedWorldAccess.Member.current == nil { _ = try await hold {} }
        try await writer?.waitUntilSaved()
    }

    /// Saves what is queued and stops saving; the world goes on in memory only. A request that
    /// started before holds the closed writer (``SaveTicket``), so its wait for a change made too late
    /// fails instead of passing. Throws when a write failed.
    func detach() async throws(StateStoreError) {
        if let shared = guarded.withLock({ $0.shared }) {
            defer { guarded.withLock { $0.state.setTracking(false) } }
            var flushFailure: StateStoreError?
            do throws(StateStoreError) { _ = try await hold {} } catch { flushFailure = error }
            await shared.close()
            guarded.withLock { $0.shared = nil }
            self.shared.store(false, ordering: .relaxed)
            keptInStore.store(false, ordering: .relaxed)
            if let flushFailure { throw flushFailure }
            return
        }
        guard let writer = guarded.withLock({ $0.writer }) else { return }
        defer {
            guarded.withLock { guarded in
                guarded.writer = nil
                keptInStore.store(false, ordering: .relaxed)
                guarded.state.setTracking(false)
            }
        }
        try await writer.close()
    }
}

/// What a transition made: its value, and the events it logged (those its changes called for included).
struct Committed<Value: Sendable>: Sendable {
    let value: Value
    let events: [DomainEvent]

    /// The value, with the events added to a request's (for its journal entry).
    func value(addingEventsTo requestEvents: inout [DomainEvent]) -> Value {
        requestEvents += events
        return value
    }
}

/// A `Codable` copy of a world: its state and its clock.
public struct WorldSnapshot: Sendable, Codable {
    /// The snapshot format; a later version migrates older ones.
    public var version = 1
    public var state: WorldState
    public var clock: MockClock.Mode
}

/// What a request waits on before it answers: the state file's writer when the request started, or
/// its place in a hold of a shared world (nothing for a world kept in memory only).
public struct SaveTicket: Sendable {
    enum Kept: Sendable {
        case memory
        case file(StateWriter)
        case shared(SharedWorldAccess, SharedWorldAccess.Member)
    }

    let kept: Kept
}
