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

    private struct Guarded: Sendable {
        var state: WorldState
        /// `/auth/keys` bodies for the current key ring (several orders when shuffled).
        var keyBodies: [String]
        /// Where changes are saved, when the world is kept in a store.
        var writer: StateWriter?
        /// The clock's mode as last queued for saving.
        var savedClock: MockClock.Mode?
    }

    private let guarded: Mutex<Guarded>
    /// Whether any fault is queued, readable without the lock: most requests have none to take.
    private let faultsQueued = Atomic<Bool>(false)
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
        self.guarded = Mutex(Guarded(state: initial, keyBodies: initial.keys.servedBodies(), writer: nil, savedClock: nil))
        self.faultsQueued.store(!initial.faults.faults.isEmpty, ordering: .relaxed)
    }

    /// Reads the state.
    public func read<T: Sendable>(_ body: (WorldState) -> T) -> T {
        guarded.withLock { body($0.state) }
    }

    /// Changes the state under the lock; the events `body` appends are logged at `now` in the same step.
    func transition<T: Sendable, E: Error>(
        at now: Date, _ body: (inout WorldState, inout [DomainEvent]) throws(E) -> T
    ) throws(E) -> T {
        var ignored: [DomainEvent] = []
        return try transition(at: now, collecting: &ignored, body)
    }

    /// ``transition(at:_:)`` that also hands the logged events to `collected` (for the request's journal entry).
    func transition<T: Sendable, E: Error>(
        at now: Date, collecting collected: inout [DomainEvent], _ body: (inout WorldState, inout [DomainEvent]) throws(E) -> T
    ) throws(E) -> T {
        try guarded.withLock { (guarded: inout Guarded) throws(E) -> T in
            var emitted: [DomainEvent] = []
            let keysBefore = guarded.state.keys.revision
            defer {
                if !emitted.isEmpty {
                    guarded.state.queueNotifications(for: emitted, at: now, options: notificationOptions, events: &emitted)
                }
                if guarded.state.keys.revision != keysBefore {
                    guarded.keyBodies = guarded.state.keys.servedBodies()
                }
                faultsQueued.store(!guarded.state.faults.faults.isEmpty, ordering: .relaxed)
                if guarded.writer != nil { queueChanges(&guarded) }
                events.append(emitted, at: now)
                collected += emitted
            }
            return try body(&guarded.state, &emitted)
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
        guarded.writer?.enqueue(rows)
    }

    /// Replaces the state (a reset, a restore); a store then gets the whole new state in one batch.
    private func replace(_ guarded: inout Guarded, with state: WorldState) {
        guarded.state = state
        // A state copied from a world kept in a store still tracks changes; only this world's store may want that.
        guarded.state.setTracking(false)
        guarded.keyBodies = state.keys.servedBodies()
        faultsQueued.store(!state.faults.faults.isEmpty, ordering: .relaxed)
        guard let writer = guarded.writer else { return }
        guarded.state.setTracking(true)
        guarded.savedClock = clock.currentMode
        writer.enqueue(guarded.state.allRows() + [PendingRow.clock(clock.currentMode)], replacingAll: true)
    }

    /// Whether any fault is queued (without taking the lock).
    var hasQueuedFaults: Bool { faultsQueued.load(ordering: .relaxed) }

    /// Logs events that change nothing (a request's journal record).
    func record(_ event: DomainEvent, at now: Date) {
        guarded.withLock { _ in events.append([event], at: now) }
    }

    /// A `/auth/keys` body: the keys in their served order, or in one of several orders when shuffled.
    public var keySetBody: String {
        guarded.withLock { $0.keyBodies.count == 1 ? $0.keyBodies[0] : $0.keyBodies.randomElement()! }
    }

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
        var restored = initialState
        var clockMode: MockClock.Mode?
        var sideRows: [WorldRow] = []
        var stateRows: [WorldRow] = []
        let decoder = JSONDecoder()
        for row in rows {
            if sideSections.contains(row.section) {
                sideRows.append(row)
            } else if row.section == PendingRow.clockSection {
                do { clockMode = try decoder.decode(MockClock.Mode.self, from: Data(row.value.utf8)) } catch {
                    throw StateStoreError("\(store.name): the clock row cannot be read: \(error)")
                }
            } else {
                stateRows.append(row)
            }
        }
        do throws(StateStoreError) { try restored.restore(stateRows, decoder: decoder) } catch {
            throw StateStoreError("\(store.name): \(error.message)")
        }
        let writer = StateWriter(store: store)
        writer.start()
        guarded.withLock { guarded in
            if let clockMode { clock.reset(to: clockMode) }
            guarded.writer = writer
            if rows.isEmpty {
                replace(&guarded, with: guarded.state)
            } else {
                guarded.state = restored
                guarded.keyBodies = restored.keys.servedBodies()
                faultsQueued.store(!restored.faults.faults.isEmpty, ordering: .relaxed)
                guarded.state.setTracking(true)
                guarded.savedClock = clock.currentMode
            }
        }
        try await writer.waitUntilSaved()
        return rows.isEmpty ? nil : sideRows
    }

    /// Saves a value kept beside the world (a timeline's progress) as the one row of `section`, in
    /// order with the world's changes; nothing without a store.
    func save(_ value: some Encodable & Sendable, section: String) {
        guarded.withLock { guarded in
            guarded.writer?.enqueue([PendingRow(section: section, key: nil, value: value, removed: false)])
        }
    }

    /// A request is under way that will wait (``waitUntilSaved(_:)``) before it answers, as the HTTP
    /// server's requests do: while any is, waiting requests write the changes themselves and no other
    /// thread is woken for them. End it with ``requestEnded(_:)``.
    public func requestStarted() -> SaveTicket {
        let writer = guarded.withLock { $0.writer }
        writer?.requestStarted()
        return SaveTicket(writer: writer)
    }

    /// Returns once every change made so far is saved by the writer the request started with.
    public func waitUntilSaved(_ ticket: SaveTicket) async throws(StateStoreError) {
        try await ticket.writer?.waitUntilSaved()
    }

    /// The request ``requestStarted()`` announced has answered.
    public func requestEnded(_ ticket: SaveTicket) { ticket.writer?.requestEnded() }

    /// Returns once every change made so far is saved (at once when the world is not kept in a store).
    public func waitUntilSaved() async throws(StateStoreError) {
        try await waitUntilSaved(SaveTicket(writer: guarded.withLock { $0.writer }))
    }

    /// Saves what is queued and stops saving; the world goes on in memory only. A request that
    /// started before holds the closed writer (``SaveTicket``), so its wait for a change made too late
    /// fails instead of passing. Throws when a write failed.
    func detach() async throws(StateStoreError) {
        guard let writer = guarded.withLock({ $0.writer }) else { return }
        defer {
            guarded.withLock { guarded in
                guarded.writer = nil
                guarded.state.setTracking(false)
            }
        }
        try await writer.close()
    }
}

/// A `Codable` copy of a world: its state and its clock.
public struct WorldSnapshot: Sendable, Codable {
    /// The snapshot format; a later version migrates older ones.
    public var version = 1
    public var state: WorldState
    public var clock: MockClock.Mode
}

/// What a request waits on before it answers: the store's writer when the request started (none for a
/// world kept in memory only).
public struct SaveTicket: Sendable {
    let writer: StateWriter?
}
