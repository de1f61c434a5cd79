import Foundation
import Synchronization

/// The one clock behind every expiry, issue time, retry and timeline step of a provider.
///
/// It runs with the wall clock (plus an offset) or stands still; tests and the admin API set and
/// advance it. Work scheduled on it fires in time order: when the clock is advanced or set past a
/// deadline, each due item runs with the clock standing at that item's deadline, earliest first (so
/// an item may schedule another that still falls inside the same advance). While the clock runs,
/// ``fireDueWork()`` (called by the server's clock driver, or by tests) fires what the
/// wall clock has reached; the driver sleeps until the next deadline, and ``changes`` wakes it when work
/// is scheduled or the clock is moved. Instances are independent, so two servers in one process never interfere.
public final class MockClock: Sendable {
    /// How the clock moves.
    public enum Mode: Sendable, Equatable, Codable {
        /// Wall-clock time shifted by `offset` seconds.
        case running(offset: TimeInterval)
        /// Stands still at the given instant until set or advanced.
        case frozen(at: Date)
    }

    /// Identifies scheduled work, to cancel it.
    public struct WorkID: Sendable, Hashable, Codable {
        let value: Int
    }

    private struct Scheduled: Sendable {
        let id: WorkID
        let deadline: Date
        let label: String
        let work: @Sendable () -> Void
    }

    private struct State: Sendable {
        var mode: Mode
        /// Sorted by deadline, then by scheduling order.
        var scheduled: [Scheduled] = []
        var nextID = 1
    }

    private let state: Mutex<State>
    private let wallClock: @Sendable () -> Date
    /// Rung when work is scheduled or the clock is set, advanced or reset: the clock driver's cue to
    /// look at the next deadline again.
    public let changes = Doorbell()

    /// A clock that follows the wall clock.
    public convenience init() { self.init(.running(offset: 0)) }

    /// A clock in the given mode.
    public init(_ mode: Mode, wallClock: @escaping @Sendable () -> Date = { Date() }) {
        state = Mutex(State(mode: mode))
        self.wallClock = wallClock
    }

    /// A clock frozen at `date`: it moves only when set or advanced.
    public static func manual(at date: Date) -> MockClock { MockClock(.frozen(at: date)) }

    /// The current instant.
    public var now: Date {
        let mode = state.withLock { $0.mode }
        return Self.instant(of: mode, wall: wallClock())
    }

    /// The current mode.
    public var currentMode: Mode { state.withLock { $0.mode } }

    /// Whether the clock stands still.
    public var isFrozen: Bool {
        if case .frozen = currentMode { return true }
        return false
    }

    /// The earliest deadline of scheduled work, if any.
    public var nextDeadline: Date? { state.withLock { $0.scheduled.first?.deadline } }

    /// Labels and deadlines of the scheduled work, earliest first.
    public var scheduledWork: [(deadline: Date, label: String)] {
        state.withLock { $0.scheduled.map { ($0.deadline, $0.label) } }
    }

    /// Moves the clock by `seconds` (negative moves it back), keeping its mode; due work fires in order.
    public func advance(by seconds: TimeInterval) throws(TimeRange.Failure) {
        let seconds = try TimeRange.checkDuration(seconds, "advance")
        let target = try TimeRange.check(now.addingTimeInterval(seconds), "the clock after advancing")
        move(to: target, frozen: nil)
    }

    /// Sets the current instant; `frozen` chooses whether it then stands still or runs on from there.
    /// Work whose deadline is reached fires in order.
    public func set(to date: Date, frozen: Bool) throws(TimeRange.Failure) {
        move(to: try TimeRange.check(date), frozen: frozen)
    }

    /// Takes on a mode another server set (a shared store's clock), keeping the work scheduled here.
    public func adopt(_ mode: Mode) {
        state.withLock { $0.mode = mode }
        changes.ring()
    }

    /// Replaces the mode outright and drops every scheduled item (used by reset).
    public func reset(to mode: Mode) {
        state.withLock { state in
            state.mode = mode
            state.scheduled.removeAll()
        }
        changes.ring()
    }

    /// Runs `work` once the clock reaches `deadline` (at once, on the next move or driver tick, if it
    /// already has). `label` names it in ``scheduledWork``.
    @discardableResult
    public func schedule(at deadline: Date, label: String, _ work: @escaping @Sendable () -> Void) -> WorkID {
        let (id, earliest) = state.withLock { state in
            let id = WorkID(value: state.nextID)
            state.nextID += 1
            let item = Scheduled(id: id, deadline: deadline, label: label, work: work)
            let index = state.scheduled.firstIndex { $0.deadline > deadline } ?? state.scheduled.endIndex
            state.scheduled.insert(item, at: index)
            return (id, index == 0)
        }
        if earliest { changes.ring() }
        return id
    }

    /// ``schedule(at:label:_:)``, and when the clock has already reached `deadline`, the work (with any
    /// other due work) runs before this returns instead of at the next move or driver tick.
    @discardableResult
    public func scheduleOrRunDue(at deadline: Date, label: String, _ work: @escaping @Sendable () -> Void) -> WorkID {
        let id = schedule(at: deadline, label: label, work)
        if now >= deadline { fireDueWork() }
        return id
    }

    /// Removes scheduled work that has not fired yet; false if it is unknown or already fired.
    @discardableResult
    public func cancel(_ id: WorkID) -> Bool {
        state.withLock { state in
            guard let index = state.scheduled.firstIndex(where: { $0.id == id }) else { return false }
            state.scheduled.remove(at: index)
            return true
        }
    }

    /// Suspends until the clock reaches `deadline` (by a move, or by the driver while it runs).
    public func sleep(until deadline: Date) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule(at: deadline, label: "sleep") { continuation.resume() }
            if !isFrozen || now >= deadline { fireDueWork() }
        }
    }

    /// Fires every item whose deadline the clock has reached, earliest first. The server calls this
    /// as wall time passes while the clock runs; moves call it themselves.
    public func fireDueWork() {
        while let item = takeDue(upTo: now) { item.work() }
    }

    // MARK: Moving

    private func move(to target: Date, frozen: Bool?) {
        // Step through each due item at its own deadline, so work sees the time it was scheduled for.
        while let item = takeDue(upTo: target, stepping: true) { item.work() }
        state.withLock { state in
            let keepFrozen: Bool
            if let frozen { keepFrozen = frozen } else if case .frozen = state.mode { keepFrozen = true } else { keepFrozen = false }
            state.mode = keepFrozen ? .frozen(at: target) : .running(offset: target.timeIntervalSince(wallClock()))
        }
        changes.ring()
    }

    /// Removes and returns the earliest item due by `target`; with `stepping`, the clock first moves
    /// to that item's deadline (keeping its mode).
    private func takeDue(upTo target: Date, stepping: Bool = false) -> Scheduled? {
        state.withLock { state in
            guard let first = state.scheduled.first, first.deadline <= target else { return nil }
            state.scheduled.removeFirst()
            if stepping, first.deadline > Self.instant(of: state.mode, wall: wallClock()) {
                switch state.mode {
                case .frozen: state.mode = .frozen(at: first.deadline)
                case .running: state.mode = .running(offset: first.deadline.timeIntervalSince(wallClock()))
                }
            }
            return first
        }
    }

    /// A running clock stops at ``TimeRange/latest``: one set just before it must not read past it a moment later.
    private static func instant(of mode: Mode, wall: Date) -> Date {
        switch mode {
        case let .running(offset): return min(wall.addingTimeInterval(offset), TimeRange.latest)
        case let .frozen(date): return date
        }
    }
}
