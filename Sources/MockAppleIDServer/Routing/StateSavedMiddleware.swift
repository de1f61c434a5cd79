import Hummingbird
import Logging
import MockAppleID
import Synchronization

/// Answers only once the changes a request made are saved, when the world is kept in a store
/// (`serve --state` or `--database-url`): a code issued, a token minted or an admin write that was
/// acknowledged outlives the process. With a shared store, the request runs only while this server
/// holds the world, caught up on what the others wrote. Without a store it costs one check.
///
/// When the store cannot be used, an Apple endpoint answers as Apple's do on a failure of their own:
/// `503` with an empty body, nothing of the store in it; the reason goes to the log and, for Apple's
/// endpoints, to the journal. The admin API (whose guard has admitted the caller by then) answers
/// `503 {"error":"state_not_saved","message":…}` with the reason.
struct StateSavedMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let provider: AppleIDProvider
    static let tenantsPath = AdminRoutes.prefix + "/tenants"
    /// The longest body read before a request of a shared world enters its hold.
    let maxBodySize: Int
    /// While a store is down every request fails alike: the log gets one line a second.
    let failures = ThrottledLog()

    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        // Button images and the JS SDK come from nothing the world holds.
        if CDNRoutes.serves(request.uri.path) { return try await next(request, context) }
        var request = request
        var delay: DeferredDelay?
        if provider.world.isShared {
            // Making or removing a tenant changes the store, not this world: it must not hold the world
            // (and every other server) while it parses a scenario and writes the tenant down.
            if request.uri.path.hasPrefix(Self.tenantsPath) { return try await next(request, context) }
            // The body is read first, and a fault's delay slept after the hold, so that neither a client
            // that sends slowly nor a slow endpoint holds the world (and every other server sharing it).
            _ = try await request.collectBody(upTo: maxBodySize)
            delay = DeferredDelay()
        }
        let ticket: SaveTicket
        do throws(StateStoreError) { ticket = try await provider.world.beginRequest() } catch {
            throw notSaved(error, request, context)
        }
        defer { provider.world.requestEnded(ticket) }
        let outcome: Result<Response, any Error>
        do {
            if let delay {
                outcome = .success(try await DeferredDelay.$current.withValue(delay) { try await next(request, context) })
            } else {
                outcome = .success(try await next(request, context))
            }
        } catch {
            outcome = .failure(error)
        }
        do throws(StateStoreError) { try await provider.world.waitUntilSaved(ticket) } catch {
            throw notSaved(error, request, context)
        }
        if let wait = delay?.duration, wait > .zero { try await Task.sleep(for: wait) }
        return try outcome.get()
    }

    /// The answer to a request whose changes cannot be kept: the reason in the log (and the journal),
    /// in the answer only for the admin API.
    private func notSaved(_ error: StateStoreError, _ request: Request, _ context: BasicRequestContext) -> any HTTPResponseError {
        let path = request.uri.path
        failures.error(context.logger, "state not saved (\(request.method) \(path.prefix(200))): \(error.message)")
        if AdminGuard.covers(path) {
            return AdminError(status: .serviceUnavailable, code: "state_not_saved", message: "the change was not saved: \(error.message)")
        }
        if let endpoint = AppleEndpoint.serving(path) {
            provider.recordRequest(endpoint, origin: request.origin, clientID: nil, status: 503,
                                   reason: "answered 503: the world's store cannot be used: \(error.message)")
        }
        return BareStatusError(status: .serviceUnavailable)
    }
}

extension AppleEndpoint {
    /// The endpoint whose path `path` is, or lies under (the consent form posts to `/auth/authorize/consent`).
    static func serving(_ path: String) -> AppleEndpoint? {
        allCases.first { path == $0.rawValue || path.hasPrefix($0.rawValue + "/") }
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
