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

    struct Guarded: Sendable {
        var state: WorldState
        /// Where changes go, and what a request waits on before it answers.
        var keeper: any WorldKeeper
        /// The clock's mode as last handed to the keeper.
        var savedClock: MockClock.Mode?
    }

    let guarded: Mutex<Guarded>
    /// Whether the world is shared with other servers, readable without the lock.
    let shared = Atomic<Bool>(false)
    /// Whether the world is kept in a store (a file or a shared database), readable without the lock.
    let keptInStore = Atomic<Bool>(false)
    /// Whether any fault is queued, readable without the lock: most requests have none to take.
    let faultsQueued = Atomic<Bool>(false)
    /// Goes up whenever the signing keys may have changed, readable without the lock (for caches of what
    /// `/auth/keys` serves).
    let keysGeneration = Atomic<Int>(0)
    /// Where ``reset()`` returns to.
    let initialState: WorldState
    private let initialClock: MockClock.Mode

    /// How the notifications that transitions call for are queued.
    let notificationOptions: NotificationOptions

    init(initial: WorldState, clock: MockClock, events: EventLog = EventLog(), notificationOptions: NotificationOptions = NotificationOptions()) {
        self.notificationOptions = notificationOptions
        self.clock = clock
        self.events = events
        self.initialState = initial
        self.initialClock = clock.currentMode
        self.guarded = Mutex(Guarded(state: initial, keeper: MemoryKeeper(), savedClock: nil))
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
                if guarded.keeper.keepsChanges { queueChanges(&guarded) }
                events.append(emitted, at: now)
            }
            let value = try body(&guarded.state, &emitted)
            return Committed(value: value, events: emitted)
        }
    }

    /// Queues the rows a transition changed (and the clock's mode, when it moved) for saving.
    func queueChanges(_ guarded: inout Guarded) {
        var rows = guarded.state.takeChanges()
        let mode = clock.currentMode
        if mode != guarded.savedClock {
            rows.append(PendingRow.clock(mode))
            guarded.savedClock = mode
        }
        enqueue(rows, replacingAll: false, &guarded)
    }

    /// Hands rows to the keeper. Rows changed outside a hold of a shared world (work the server did not
    /// run in one) are written by holding the world once more.
    func enqueue(_ rows: [PendingRow], replacingAll: Bool, _ guarded: inout Guarded) {
        if guarded.keeper.keep(rows, replacingAll: replacingAll) {
            Task { _ = try? await self.hold {} }
        }
    }

    /// Replaces the state (a reset, a restore); a store then gets the whole new state in one batch.
    func replace(_ guarded: inout Guarded, with state: WorldState) {
        guarded.state = state
        guarded.state.relayDomains = initialState.relayDomains
        guarded.state.recordUnrecordedRelayDomains()
        // A state copied from a world kept in a store still tracks changes; only this world's store may want that.
        guarded.state.setTracking(false)
        // A snapshot taken before refresh grants carried their serial gets them here, so a store is given them.
        guarded.state.rebuildRefreshIndex()
        keysGeneration.add(1, ordering: .relaxed)
        notificationsQueued.ring()
        faultsQueued.store(!state.faults.faults.isEmpty, ordering: .relaxed)
        guard guarded.keeper.keepsChanges else { return }
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
