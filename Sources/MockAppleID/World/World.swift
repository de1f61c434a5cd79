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
        self.guarded = Mutex(Guarded(state: initial, keyBodies: initial.keys.servedBodies()))
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
                events.append(emitted, at: now)
                collected += emitted
            }
            return try body(&guarded.state, &emitted)
        }
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
            guarded = Guarded(state: initialState, keyBodies: initialState.keys.servedBodies())
            faultsQueued.store(!initialState.faults.faults.isEmpty, ordering: .relaxed)
            clock.reset(to: initialClock)
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
            guarded = Guarded(state: snapshot.state, keyBodies: snapshot.state.keys.servedBodies())
            faultsQueued.store(!snapshot.state.faults.faults.isEmpty, ordering: .relaxed)
            clock.reset(to: snapshot.clock)
        }
    }
}

/// A `Codable` copy of a world: its state and its clock.
public struct WorldSnapshot: Sendable, Codable {
    /// The snapshot format; a later version migrates older ones.
    public var version = 1
    public var state: WorldState
    public var clock: MockClock.Mode
}
