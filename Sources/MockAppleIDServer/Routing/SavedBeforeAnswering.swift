import Hummingbird
import Logging
import MockAppleID
import Synchronization

/// A request of the HTTP server done through ``AppleIDProvider/perform(_:_:)``, the rule that it answers only once
/// the changes it made are saved when the world is kept in a store. With a store several servers share, the
/// request's body is read first, and a fault's delay slept after the world is let go, so that neither a client that
/// sends slowly nor a slow endpoint holds the world (and every other server sharing it).
struct SavedBeforeAnswering: Sendable {
    let provider: AppleIDProvider
    /// The longest body read before a request of a shared world enters its hold.
    let maxBodySize: Int

    /// Does `body` for `request` as `work`; returns its outcome once its changes are saved, or throws why they cannot
    /// be (the store failed before or after).
    func run(_ request: Request, as work: Work, _ body: (Request) async throws -> Response) async throws(StateStoreError) -> Result<Response, any Error> {
        guard provider.world.isShared else { return try await provider.perform(work) { () async throws -> Response in try await body(request) } }
        var request = request
        do { _ = try await request.collectBody(upTo: maxBodySize) } catch {
            provider.refuse(work, with: error)
            return .failure(error)
        }
        let delay = DeferredDelay()
        let sleep = { if delay.duration > .zero { try? await Task.sleep(for: delay.duration) } }
        return try await provider.perform(work, afterSaved: sleep) { [request] () async throws -> Response in
            try await DeferredDelay.$current.withValue(delay) { try await body(request) }
        }
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
