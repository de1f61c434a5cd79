@testable import MockAppleIDStorage
import Synchronization
import Testing

/// A database step never holds its caller up: it ends with its operation, at its deadline, or when
/// its caller is cancelled, even when the operation itself would never end (as a PostgresNIO query
/// written to a connection that just closed).
@Suite("database steps")
struct DatabaseStepTests {
    /// An operation that ignores cancellation and ends only once abandoned (its connection closed).
    final class Stuck: Sendable {
        private let state = Mutex<(waiting: CheckedContinuation<Void, Never>?, abandoned: Bool)>((nil, false))

        var abandoned: Bool { state.withLock { $0.abandoned } }
        /// The operation has started and is waiting.
        var waiting: Bool { state.withLock { $0.waiting != nil } }

        /// Waits (polling, with a deadline) until `condition` holds.
        func poll(_ condition: () -> Bool) async {
            let deadline = ContinuousClock.now + .seconds(30)
            while !condition(), ContinuousClock.now < deadline { await Task.yield() }
        }

        func operation() async -> Int {
            await withCheckedContinuation { continuation in
                let abandoned = state.withLock { state in
                    if !state.abandoned { state.waiting = continuation }
                    return state.abandoned
                }
                if abandoned { continuation.resume() }
            }
            return 1
        }

        func abandon() {
            state.withLock { state in
                state.abandoned = true
                defer { state.waiting = nil }
                return state.waiting
            }?.resume()
        }
    }

    struct Refused: Error {}

    @Test func anOperationThatEndsGivesItsValueOrItsError() async throws {
        let stuck = Stuck()
        let value = try await DatabaseStep.run(within: .seconds(60), grace: .zero, abandoning: { stuck.abandon() }) { 42 }
        #expect(value == 42)
        await #expect(throws: Refused.self) {
            try await DatabaseStep.run(within: .seconds(60), grace: .zero, abandoning: { stuck.abandon() }) { () throws -> Int in throw Refused() }
        }
        #expect(!stuck.abandoned)
    }

    @Test func anOperationThatNeverEndsIsAbandonedAtTheDeadline() async {
        let stuck = Stuck()
        await #expect(throws: DatabaseStep.TimedOut.self) {
            try await DatabaseStep.run(within: .milliseconds(50), grace: .zero, abandoning: { stuck.abandon() }) { await stuck.operation() }
        }
        await stuck.poll { stuck.abandoned }  // the caller is resumed before the operation is abandoned
        #expect(stuck.abandoned)
    }

    @Test func aCancelledCallerWithoutGraceStopsWaitingAtOnce() async {
        let stuck = Stuck()
        let caller = Task {
            try await DatabaseStep.run(within: .seconds(3600), grace: .zero, abandoning: { stuck.abandon() }) { await stuck.operation() }
        }
        await stuck.poll { stuck.waiting }
        #expect(stuck.waiting)
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        await stuck.poll { stuck.abandoned }
        #expect(stuck.abandoned)
    }

    @Test func aCancelledCallerWithGraceGetsItsOperationsResultWhenItEndsWithinTheGrace() async throws {
        let stuck = Stuck()
        let abandoned = Mutex(false)
        let caller = Task {
            try await DatabaseStep.run(within: .seconds(3600), grace: .seconds(3600), abandoning: { abandoned.withLock { $0 = true } }) {
                await stuck.operation()
            }
        }
        await stuck.poll { stuck.waiting }
        caller.cancel()
        stuck.abandon()  // here: the operation ends on its own, within the grace
        #expect(try await caller.value == 1)
        #expect(!abandoned.withLock { $0 })
    }

    @Test func aCancelledCallerWithGraceIsLetGoWhenTheGraceEnds() async {
        let stuck = Stuck()
        let caller = Task {
            try await DatabaseStep.run(within: .seconds(3600), grace: .milliseconds(50), abandoning: { stuck.abandon() }) {
                await stuck.operation()
            }
        }
        await stuck.poll { stuck.waiting }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        await stuck.poll { stuck.abandoned }
        #expect(stuck.abandoned)
    }

    @Test func aStepWhoseConnectionClosesEndsThenNotAtItsDeadline() async {
        struct Closed: Error {}
        let stuck = Stuck()
        let closed = Mutex(false)
        let caller = Task {
            try await DatabaseStep.run(within: .seconds(3600), grace: .zero, abandoning: { stuck.abandon() },
                                       endsEarly: { closed.withLock { $0 } ? Closed() : nil }) { await stuck.operation() }
        }
        await stuck.poll { stuck.waiting }
        closed.withLock { $0 = true }
        await #expect(throws: Closed.self) { try await caller.value }
        await stuck.poll { stuck.abandoned }
        #expect(stuck.abandoned)
    }
}
