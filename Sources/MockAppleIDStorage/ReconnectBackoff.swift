import Synchronization

/// When to try a database that could not be reached again. After a failed attempt, none is made until
/// a delay has passed: 50 ms after the first failure, doubling with each failure in a row up to 2 s,
/// each delay shortened at random by up to half (so servers that lost the database together do not come
/// back in step). Meanwhile callers are refused at once with the last failure, and once the delay has
/// passed one caller tries again; the first success ends the backoff.
///
/// Each attempt carries the round it was admitted in: only the first failure of the attempts a round
/// admitted counts (attempts under way when the database went away fail together), and an attempt that
/// was cancelled, not refused, counts for nothing.
///
/// Without it, every request to a server whose database is down opened a connection of its own: a
/// burst of refused connections, each holding a local port, and a request stalled on every one.
final class ReconnectBackoff: Sendable {
    /// What a caller may do now.
    enum Admission: Equatable {
        /// Connect, then report how it went (``succeeded(_:)``, ``failed(_:round:)`` or ``abandoned(_:)``)
        /// with this round.
        case attempt(round: Int)
        /// Do not connect: the last attempt failed for `reason`, and the next is due in `remaining`
        /// (zero: one is under way).
        case refused(reason: String, remaining: Duration)
    }

    /// The first delay and the longest.
    static let firstDelay = Duration.milliseconds(50)
    static let longestDelay = Duration.seconds(2)

    private struct State {
        var failures = 0
        /// Increases with each failure that counted: attempts of earlier rounds report for nothing.
        var round = 0
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
            guard state.failures > 0 else { return .attempt(round: state.round) }
            guard !state.probing, instant >= state.nextAttempt else {
                let remaining = state.probing ? .zero : instant.duration(to: state.nextAttempt)
                return .refused(reason: state.lastFailure, remaining: remaining)
            }
            state.probing = true
            return .attempt(round: state.round)
        }
    }

    /// An attempt connected; returns whether it ended a backoff.
    @discardableResult
    func succeeded(_ round: Int) -> Bool {
        state.withLock { state in
            let ended = state.failures > 0
            state.failures = 0
            state.probing = false
            if ended { state.round += 1 }
            return ended
        }
    }

    /// An attempt of `round` failed for `reason`. When it counts (the first failure of its round), returns
    /// the delay before the next attempt and whether this failure began the backoff; nil otherwise.
    @discardableResult
    func failed(_ reason: String, round: Int) -> (delay: Duration, first: Bool)? {
        let instant = now()
        let jitter = random()
        return state.withLock { state in
            guard round == state.round else { return nil }
            state.failures += 1
            state.round += 1
            state.lastFailure = reason
            state.probing = false
            let delay = Self.delay(afterFailures: state.failures, jitter: jitter)
            state.nextAttempt = instant.advanced(by: delay)
            return (delay, state.failures == 1)
        }
    }

    /// A connection that was open stopped answering, or closed under a request: begins a backoff as a failed
    /// attempt does, so that callers are refused at once while the database is tried again (a database whose host
    /// froze still accepts connections, and each would wait for its connect deadline). Connections lost together
    /// (several worlds' holds) count once: a loss while backing off already changes nothing.
    @discardableResult
    func lost(_ reason: String) -> (delay: Duration, first: Bool)? {
        let round: Int? = state.withLock { $0.failures == 0 ? $0.round : nil }
        return round.flatMap { failed(reason, round: $0) }
    }

    /// Why a caller would be refused now (``admit()`` would say so), without taking a probe's place; nil when
    /// it may connect.
    var refusal: String? {
        let instant = now()
        return state.withLock { state in
            state.failures > 0 && (state.probing || instant < state.nextAttempt) ? state.lastFailure : nil
        }
    }

    /// Whether the last attempt failed: the next one is a probe, given less time (``PostgresConnector``).
    var isBackingOff: Bool { state.withLock { $0.failures > 0 } }

    /// An attempt of `round` was given up by its caller (cancelled): it says nothing of the database, and
    /// another caller may try in its place.
    func abandoned(_ round: Int) {
        state.withLock { state in
            if round == state.round { state.probing = false }
        }
    }

    /// The delay after `failures` failures in a row, for a `jitter` in 0..<1 (0: the whole delay).
    static func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        let full = min(firstDelay * (1 << doublings), longestDelay)
        return full * (1 - min(max(jitter, 0), 0.999) / 2)
    }
}
