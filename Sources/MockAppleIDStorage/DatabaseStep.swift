import Logging
import PostgresNIO
import Synchronization

/// One step on a PostgreSQL connection (a query, or a few in a row) that cannot hold its caller up:
/// the caller goes on when the step ends, when `deadline` passes, or when `grace` has passed since the
/// caller's task was cancelled, whichever comes first. In the last two cases the connection is closed
/// (an open transaction on it is rolled back, or, if its commit was already on the way, committed) and
/// the step is left to end on its own. A hold's steps get a grace: a hold is shared by requests, and its
/// write should not be dropped because the task that happens to run it is being cancelled, but a server
/// shutting down must not wait for a database that stopped answering.
///
/// PostgresNIO does not bound this itself: a query written to a connection that has just closed (by
/// the server, by the network, or by a connect the caller's cancellation cut short) may never be
/// answered, and closing that connection again does not end the wait.
enum DatabaseStep {
    /// The step did not end within its deadline; the connection was closed.
    struct TimedOut: Error, CustomStringConvertible {
        let deadline: Duration
        var description: String { "the database did not answer within \(deadline.components.seconds) s" }
    }

    /// The grace a hold's step gets once its caller is cancelled: well within a shutdown's limits.
    static let holdGrace = Duration.seconds(2)

    /// The connection closed while the step was under way (or before it began).
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to the database closed" }
    }

    /// How often a step on a connection looks whether the connection closed. (A callback on its close
    /// would do it sooner, but a connection that serves many steps would keep one per step until it closes.)
    static let closedCheckInterval = Duration.milliseconds(100)

    /// Runs `operation` (which uses `connection`) within `deadline`; throws what it throws,
    /// ``TimedOut``, ``ConnectionClosed`` once the connection is found closed, or `CancellationError` when
    /// `grace` has passed since the caller's task was cancelled.
    static func run<T: Sendable>(within deadline: Duration, grace: Duration, on connection: PostgresConnection,
                                 _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await run(within: deadline, grace: grace, abandoning: { try? await connection.close() },
                      endsEarly: { connection.isClosed ? ConnectionClosed() : nil }, operation)
    }

    /// Asks `connection` `SELECT 1` within `deadline`, to learn whether it still answers: throws as
    /// ``run(within:grace:on:_:)`` does, with no grace once the caller's task is cancelled.
    static func ping(_ connection: PostgresConnection, within deadline: Duration, logger: Logger) async throws {
        try await run(within: deadline, grace: .zero, on: connection) {
            _ = try await connection.query("SELECT 1", logger: logger)
        }
    }

    /// Runs `operation` within `deadline`; when the deadline passes, or `grace` after the caller's task
    /// is cancelled, throws ``TimedOut`` or `CancellationError` without waiting for the operation to end,
    /// cancels the operation's task and then calls `abandon` (which must make the operation's work void):
    /// the caller may resume before `abandon` has run. `endsEarly`, asked every ``closedCheckInterval``,
    /// may end the step before its deadline with the error it returns (a connection that closed).
    static func run<T: Sendable>(within deadline: Duration, grace: Duration,
                                 abandoning abandon: @escaping @Sendable () async -> Void,
                                 endsEarly: (@Sendable () -> (any Error)?)? = nil,
                                 _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard race.wait(with: continuation) else { return }
                let work = Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                }
                let timer = Task {
                    var ending: any Error = TimedOut(deadline: deadline)
                    if let endsEarly {
                        let end = ContinuousClock.now.advanced(by: deadline)
                        while ContinuousClock.now < end {
                            try await Task.sleep(for: min(closedCheckInterval, ContinuousClock.now.duration(to: end)))
                            if let early = endsEarly() {
                                ending = early
                                break
                            }
                        }
                    } else {
                        try await Task.sleep(for: deadline)
                    }
                    if race.finish(.failure(ending)) { await abandon() }
                }
                race.whenFinished { timer.cancel(); work.cancel() }
            }
        } onCancel: {
            let graceTimer = Task {
                if grace > .zero { try await Task.sleep(for: grace) }
                if race.finish(.failure(CancellationError())) { await abandon() }
            }
            race.whenFinished { graceTimer.cancel() }
        }
    }

    /// How long opening a connection may take, its start-up and authentication included: the
    /// configuration's connect timeout bounds only reaching the host, and a listener that accepts and
    /// then says nothing (a database that hangs, a proxy whose database is gone) would hold the caller,
    /// and every request waiting for the world with it, for ever.
    static let connectDeadline = Duration.seconds(10)

    /// Opens a connection, within `deadline`. The caller's cancellation does not cut the handshake short
    /// (PostgresNIO may then hand back a connection it closed): a connection that opens after its caller
    /// gave up is closed.
    static func connect(_ configuration: PostgresConnection.Configuration, within deadline: Duration = connectDeadline,
                        logger: Logger) async throws -> PostgresConnection {
        let attempt = Task { try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger) }
        return try await run(within: deadline, grace: .zero, abandoning: { try? await attempt.value.close() }) {
            try await attempt.value
        }
    }

    /// Whichever of the step's end, its deadline and its caller's cancellation comes first.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var result: Result<T, any Error>?
            var finished = false
            var onFinish: [@Sendable () -> Void] = []
        }
        private let state = Mutex(State())

        /// Waits for the race's end; returns false when it is over already (the continuation is resumed).
        func wait(with continuation: CheckedContinuation<T, any Error>) -> Bool {
            let result = state.withLock { state in
                if state.result == nil { state.continuation = continuation }
                return state.result
            }
            guard let result else { return true }
            continuation.resume(with: result)
            return false
        }

        /// Runs `action` once the race is over (at once when it is already).
        func whenFinished(_ action: @escaping @Sendable () -> Void) {
            let over = state.withLock { state in
                if !state.finished { state.onFinish.append(action) }
                return state.finished
            }
            if over { action() }
        }

        /// Ends the race with `result` unless it ended already; returns whether this ended it.
        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            let (won, continuation, onFinish) = state.withLock { state in
                guard !state.finished else { return (false, nil as CheckedContinuation<T, any Error>?, [@Sendable () -> Void]()) }
                state.finished = true
                defer {
                    state.continuation = nil
                    state.onFinish = []
                }
                if state.continuation == nil { state.result = result }
                return (true, state.continuation, state.onFinish)
            }
            continuation?.resume(with: result)
            for action in onFinish { action() }
            return won
        }
    }
}
