import Synchronization

/// When to try a database that could not be reached again. After a failed attempt, none is made until
/// a delay has passed: 50 ms after the first failure, doubling with each failure in a row up to 2 s,
/// each delay shortened at random by up to half (so servers that lost the database together do not come
/// back in step). Meanwhile callers are refused at once with the last failure, and once the delay has
/// passed one caller at a time tries again; the first success ends the backoff.
///
/// Without it, every request to a server whose database is down opened a connection of its own: a
/// burst of refused connections, each holding a local port, and a request stalled on every one.
final class ReconnectBackoff: Sendable {
    /// What a caller may do now.
    enum Admission: Equatable {
        /// Connect (and report how it went with ``succeeded()`` or ``failed(_:)``).
        case attempt
        /// Do not connect: the last attempt failed for `reason`, and the next is due in `remaining`.
        case refused(reason: String, remaining: Duration)
    }

    /// The first delay and the longest.
    static let firstDelay = Duration.milliseconds(50)
    static let longestDelay = Duration.seconds(2)

    private struct State {
        var failures = 0
        var nextAttempt = ContinuousClock.Instant.now
        var lastFailure = ""
        /// An attempt after a failure is under way: the others wait for its outcome.
        var probing = false
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> ContinuousClock.Instant
    /// A number in 0..<1 for the jitter.
    private let random: @Sendable () -> Double

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, random: @escaping @Sendable () -> Double = { .random(in: 0..<1) }) {
        self.now = now
        self.random = random
    }

    /// Whether a caller may connect now. While the database is reachable every caller may; after a
    /// failure only one, once the delay has passed.
    func admit() -> Admission {
        let instant = now()
        return state.withLock { state in
            guard state.failures > 0 else { return .attempt }
            guard !state.probing, instant >= state.nextAttempt else {
                let remaining = state.probing ? .zero : instant.duration(to: state.nextAttempt)
                return .refused(reason: state.lastFailure, remaining: remaining)
            }
            state.probing = true
            return .attempt
        }
    }

    /// An attempt connected; returns whether it ended a backoff.
    @discardableResult
    func succeeded() -> Bool {
        state.withLock { state in
            defer { state = State() }
            return state.failures > 0
        }
    }

    /// An attempt failed for `reason`; returns the delay before the next one, and whether this failure
    /// began the backoff (the database was reachable before).
    @discardableResult
    func failed(_ reason: String) -> (delay: Duration, first: Bool) {
        let instant = now()
        let jitter = random()
        return state.withLock { state in
            state.failures += 1
            state.lastFailure = reason
            state.probing = false
            let delay = Self.delay(afterFailures: state.failures, jitter: jitter)
            state.nextAttempt = instant.advanced(by: delay)
            return (delay, state.failures == 1)
        }
    }

    /// The delay after `failures` failures in a row, for a `jitter` in 0..<1 (0: the whole delay).
    static func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        let full = min(firstDelay * (1 << doublings), longestDelay)
        return full * (1 - min(max(jitter, 0), 0.999) / 2)
    }
}
