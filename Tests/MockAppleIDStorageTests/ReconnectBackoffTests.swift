@testable import MockAppleIDStorage
import Synchronization
import Testing

/// While a database cannot be reached, connections are tried at most once per delay that doubles from
/// 50 ms to 2 s; every other caller is refused at once (over a real socket:
/// Tests/Conformance/test_shared_database.py, the outage test).
@Suite("reconnect backoff")
struct ReconnectBackoffTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 = $0.advanced(by: duration) } }
    }

    /// The round an admission carries (fails the test when it is a refusal).
    static func round(_ admission: ReconnectBackoff.Admission) -> Int {
        guard case let .attempt(round) = admission else {
            Issue.record("refused: \(admission)")
            return -1
        }
        return round
    }

    @Test("after a failure: refused with the reason until the delay passes, then one caller at a time tries; success ends it")
    func schedule() {
        let clock = Clock()
        let backoff = ReconnectBackoff(now: { clock.now }, random: { 0 })
        let first = Self.round(backoff.admit())
        #expect(backoff.admit() == .attempt(round: first))  // reachable: every caller connects
        #expect(backoff.failed("connection refused", round: first)! == (.milliseconds(50), true))
        #expect(backoff.admit() == .refused(reason: "connection refused", remaining: .milliseconds(50)))
        clock.advance(by: .milliseconds(49))
        #expect(backoff.admit() == .refused(reason: "connection refused", remaining: .milliseconds(1)))
        clock.advance(by: .milliseconds(1))
        let probe = Self.round(backoff.admit())
        #expect(backoff.admit() == .refused(reason: "connection refused", remaining: .zero))  // one probe at a time
        #expect(backoff.failed("timed out", round: probe)! == (.milliseconds(100), false))
        clock.advance(by: .milliseconds(100))
        let next = Self.round(backoff.admit())
        #expect(backoff.succeeded(next))
        #expect(backoff.admit() == .attempt(round: next + 1) && backoff.admit() == .attempt(round: next + 1))  // every caller again
        #expect(!backoff.succeeded(next + 1))
    }

    @Test("attempts under way when the database goes count once; a late failure of theirs does not end a probe; a cancelled probe lets another try")
    func rounds() {
        let clock = Clock()
        let backoff = ReconnectBackoff(now: { clock.now }, random: { 0 })
        let together = (0..<50).map { _ in Self.round(backoff.admit()) }
        #expect(backoff.failed("refused", round: together[0])?.delay == .milliseconds(50))
        #expect(together.dropFirst().allSatisfy { backoff.failed("refused", round: $0) == nil })
        clock.advance(by: .milliseconds(50))
        let probe = Self.round(backoff.admit())
        #expect(backoff.failed("late", round: together[0]) == nil)
        #expect(backoff.admit() == .refused(reason: "refused", remaining: .zero))  // still probing
        backoff.abandoned(probe)
        let again = Self.round(backoff.admit())
        #expect(again == probe)
        #expect(backoff.failed("refused", round: again)?.delay == .milliseconds(100))
    }

    @Test("a connection lost under a request backs off as a failed connect does; the refusal is known without taking a probe's place")
    func lostConnection() {
        let clock = Clock()
        let backoff = ReconnectBackoff(now: { clock.now }, random: { 0 })
        #expect(backoff.refusal == nil && !backoff.isBackingOff)
        #expect(backoff.lost("the database did not answer within 3 s")! == (.milliseconds(50), true))
        #expect(backoff.lost("another world's connection, lost with it") == nil)  // counted once
        #expect(backoff.isBackingOff && backoff.refusal == "the database did not answer within 3 s")
        #expect(backoff.admit() == .refused(reason: "the database did not answer within 3 s", remaining: .milliseconds(50)))
        clock.advance(by: .milliseconds(50))
        #expect(backoff.refusal == nil)  // a probe may go: asking took no place
        let probe = Self.round(backoff.admit())
        #expect(backoff.refusal == "the database did not answer within 3 s")  // while it is under way
        #expect(backoff.succeeded(probe))
        #expect(backoff.refusal == nil && !backoff.isBackingOff)
    }

    @Test("the delay doubles up to 2 s, and jitter shortens it by up to half")
    func delays() {
        let full = (1...9).map { ReconnectBackoff.delay(afterFailures: $0, jitter: 0) }
        #expect(full == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                         .milliseconds(1600), .seconds(2), .seconds(2), .seconds(2)])
        #expect(ReconnectBackoff.delay(afterFailures: 1000, jitter: 0) == .seconds(2))
        #expect(ReconnectBackoff.delay(afterFailures: 3, jitter: 0.5) == .milliseconds(150))
        let shortest = ReconnectBackoff.delay(afterFailures: 7, jitter: 0.999_999)
        #expect(shortest >= .seconds(1) && shortest < .milliseconds(1002))
    }

    @Test("a minute of callers every millisecond against a database that stays down: at most one attempt per delay")
    func boundedAttempts() {
        let clock = Clock()
        let backoff = ReconnectBackoff(now: { clock.now }, random: { 0.5 })
        var attempts = 0
        for _ in 0..<60_000 {
            if case let .attempt(round) = backoff.admit() {
                attempts += 1
                backoff.failed("connection refused", round: round)
            }
            clock.advance(by: .milliseconds(1))
        }
        // 6 delays to reach the longest, then one per 1.5 s (2 s shortened by a quarter): about 45, not 60,000.
        #expect((40...50).contains(attempts), "\(attempts)")
    }
}
