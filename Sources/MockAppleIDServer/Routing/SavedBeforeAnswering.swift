import Hummingbird
import Logging
import MockAppleID
import Synchronization

/// The rule that a request answers only once the changes it made are saved, when the world is kept in a
/// store (`serve --state` or `--database-url`): a code issued, a token minted or an admin write that was
/// acknowledged outlives the process. With a shared store, the request runs only while this server holds
/// the world, caught up on what the others wrote. Without a store it costs one atomic read.
struct SavedBeforeAnswering: Sendable {
    let world: World
    /// The longest body read before a request of a shared world enters its hold.
    let maxBodySize: Int

    /// Runs `body` for `request` under the rule; returns its outcome once its changes are saved, or throws
    /// why they cannot be (the store failed before or after).
    func run(_ request: Request, _ body: (Request) async throws -> Response) async throws(StateStoreError) -> Result<Response, any Error> {
        guard world.isKeptInStore else {
            do { return .success(try await body(request)) } catch { return .failure(error) }
        }
        var request = request
        var delay: DeferredDelay?
        if world.isShared {
            // The body is read first, and a fault's delay slept after the hold, so that neither a client that
            // sends slowly nor a slow endpoint holds the world (and every other server sharing it).
            do { _ = try await request.collectBody(upTo: maxBodySize) } catch { return .failure(error) }
            delay = DeferredDelay()
        }
        let ticket = try await world.beginRequest()
        defer { world.requestEnded(ticket) }
        let outcome: Result<Response, any Error>
        do {
            if let delay {
                outcome = .success(try await DeferredDelay.$current.withValue(delay) { [request] in try await body(request) })
            } else {
                outcome = .success(try await body(request))
            }
        } catch {
            outcome = .failure(error)
        }
        try await world.waitUntilSaved(ticket)
        if let wait = delay?.duration, wait > .zero { try? await Task.sleep(for: wait) }
        return outcome
    }
}

/// At most one line a second for a failure every request would repeat, saying how many were left out.
final class ThrottledLog: Sendable {
    private struct State {
        var last: ContinuousClock.Instant?
        var skipped = 0
    }

    private let state = Mutex(State())
    static let interval = Duration.seconds(1)

    /// Logs `message` at `error`, unless a line was logged less than ``interval`` ago.
    func error(_ logger: Logger, _ message: @autoclosure () -> String) {
        let now = ContinuousClock.now
        let skipped: Int? = state.withLock { state in
            if let last = state.last, last.duration(to: now) < Self.interval {
                state.skipped += 1
                return nil
            }
            defer { state = State(last: now, skipped: 0) }
            return state.skipped
        }
        guard let skipped else { return }
        logger.error("\(message())\(skipped > 0 ? " (\(skipped) more like it since the last line)" : "")")
    }
}
