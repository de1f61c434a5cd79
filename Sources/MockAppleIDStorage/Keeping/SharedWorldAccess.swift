import Foundation
import MockAppleID
import Synchronization

/// How a world kept in a ``SharedWorldStore`` is held by this server, one hold at a time.
///
/// A request (or background job) enters before it reads or changes the world and leaves once done.
/// The first to enter when nobody holds the world opens a hold: it takes the world from the store
/// and applies what other servers wrote. Requests that arrive while the hold is young join it and run
/// in parallel in memory, as without a store; later ones wait for the next hold, so other servers get
/// their turn. The last member to leave writes every change the hold made in one transaction and gives
/// the world back, and only then do the members answer: a change acknowledged is in the store.
///
/// When a write fails, the members of that hold fail, and the next hold reloads the whole world from
/// the store (this server's copy may hold changes the store does not).
final class SharedWorldAccess: Sendable {
    /// One request's place in a hold; leave it once.
    final class Member: Sendable {
        /// The hold the current task is in, if any: a hold asked for inside it is that one.
        @TaskLocal static var current: Member?

        fileprivate let hold: HoldOutcome
        fileprivate let left = Atomic<Bool>(false)
        fileprivate init(hold: HoldOutcome) { self.hold = hold }
    }

    /// How a hold ended, for the members waiting on it.
    fileprivate final class HoldOutcome: Sendable {
        private struct Ending {
            var result: Result<Void, StateStoreError>?
            var waiters: [CheckedContinuation<Result<Void, StateStoreError>, Never>] = []
        }
        private let ending = Mutex(Ending())

        func finish(_ result: Result<Void, StateStoreError>) {
            let waiters = ending.withLock { ending in
                ending.result = result
                defer { ending.waiters = [] }
                return ending.waiters
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }

        func wait() async -> Result<Void, StateStoreError> {
            await withCheckedContinuation { continuation in
                let result = ending.withLock { ending in
                    if ending.result == nil { ending.waiters.append(continuation) }
                    return ending.result
                }
                if let result { continuation.resume(returning: result) }
            }
        }
    }

    private typealias Admission = SharedHoldAdmission<HoldOutcome>
    private typealias State = SharedHoldState<HoldOutcome, CheckedContinuation<Admission, Never>, CheckedContinuation<Void, Never>>

    /// The most requests one hold admits, and how long after it opened one may still join.
    static let mostMembers = 64
    static let longestJoinWindow = Duration.milliseconds(20)

    let store: any SharedWorldStore
    let scenario: String
    private let state = Mutex(State(mostMembers: mostMembers, joinWindow: longestJoinWindow, firstHold: HoldOutcome(), now: ContinuousClock.now))

    init(store: any SharedWorldStore, scenario: String) {
        self.store = store
        self.scenario = scenario
    }

    /// Waits for a place in a hold; when this opens it, `catchUp` applies what the store returned
    /// (it runs before any member goes on). Throws when the store cannot be reached or read.
    func enter(catchUp: (SharedChanges) throws(StateStoreError) -> Void) async throws(StateStoreError) -> Member {
        // While the store is being tried again after a failure, refused at once (not parked behind the attempt).
        if let unavailable = store.unavailable { throw unavailable }
        var admission = state.withLock { $0.admit(now: ContinuousClock.now, newHold: HoldOutcome.init) }
        if admission == nil {
            admission = await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    let admission = state.admit(now: ContinuousClock.now, newHold: HoldOutcome.init)
                    if admission == nil { state.park(continuation) }
                    return admission
                }
                if let now { continuation.resume(returning: now) }
            }
        }
        switch admission! {
        case let .member(hold): return Member(hold: hold)
        case let .failed(error): throw error
        case let .opener(hold):
            try await open(catchUp: catchUp)
            return Member(hold: hold)
        }
    }

    private func open(catchUp: (SharedChanges) throws(StateStoreError) -> Void) async throws(StateStoreError) {
        let version = state.withLock { $0.version }
        let changes: SharedChanges
        do throws(StateStoreError) {
            changes = try await store.acquire(after: version, scenario: scenario)
        } catch {
            failOpening(error)
            throw error
        }
        if changes.complete { state.withLock { $0.dropQueued() } }
        do throws(StateStoreError) { try catchUp(changes) } catch {
            _ = try? await store.release(writing: [], replacingAll: false)
            failOpening(error)
            throw error
        }
        let (joining, hold) = state.withLock { $0.opened(version: changes.version, now: ContinuousClock.now) }
        for waiter in joining { waiter.resume(returning: .member(hold)) }
    }

    /// Opening failed: the hold is over, and so are the waits of those waiting for it.
    private func failOpening(_ error: StateStoreError) {
        let (waiting, idle) = state.withLock { $0.failedOpening() }
        for waiter in waiting { waiter.resume(returning: .failed(error)) }
        for waiter in idle { waiter.resume() }
    }

    /// Queues rows the world changed, to be written when the hold ends. Returns true when no hold is
    /// under way that will write them (none, or one already writing): the caller then holds the world
    /// once more, so they are written.
    func enqueue(_ rows: [PendingRow], replacingAll: Bool) -> Bool {
        state.withLock { $0.enqueue(rows, replacingAll: replacingAll) }
    }

    /// Leaves the hold; the last member writes its changes and gives the world back. Returns once
    /// the hold's changes are written (or throws why not).
    func leave(_ member: Member) async throws(StateStoreError) {
        guard !member.left.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let closing = takeClosing() {
            await close(closing)
        }
        try await member.hold.wait().get()
    }

    /// Leaves the hold without waiting for its write (a request that ended early).
    func leaveWithoutWaiting(_ member: Member) {
        guard !member.left.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let closing = takeClosing() {
            Task { await close(closing) }
        }
    }

    /// One member fewer; the last one takes what the hold changed.
    private func takeClosing() -> State.Closing? {
        state.withLock { $0.memberLeft() }
    }

    /// Writes a hold's changes, gives the world back, and lets the next waiter open a hold.
    private func close(_ closing: State.Closing) async {
        var result: Result<Void, StateStoreError> = .success(())
        var version: Int64 = -1
        do throws(StateStoreError) {
            let changes: [WorldRowChange]
            do { changes = try PendingRow.encodedLatest(closing.rows) } catch {
                _ = try? await store.release(writing: [], replacingAll: false)
                throw StateStoreError("\(store.name): a change could not be encoded: \(error)")
            }
            version = try await store.release(writing: changes, replacingAll: closing.replacingAll)
        } catch {
            result = .failure(error)
        }
        let (next, idle) = state.withLock { $0.closedHold(version: version, newHold: HoldOutcome.init) }
        closing.hold.finish(result)
        next?.waiter.resume(returning: next!.admission)
        for waiter in idle { waiter.resume() }
    }

    /// Requests waiting for the next hold (for diagnostics and tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Refuses new holds and returns once the one under way (and those already waiting) ended.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if state.withLock({ $0.refuseNewHolds(continuation) }) { continuation.resume() }
        }
    }
}
