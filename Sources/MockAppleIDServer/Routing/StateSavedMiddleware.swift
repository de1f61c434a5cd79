import Hummingbird
import Logging
import MockAppleID

/// Answers only once the changes a request made are saved, when the world is kept in a store
/// (`serve --state` or `--database-url`): a code issued, a token minted or an admin write that was
/// acknowledged outlives the process. With a shared store, the request runs only while this server
/// holds the world, caught up on what the others wrote. Without a store it costs one check. When the store cannot be written, the answer is
/// `503` with `{"error":"state_not_saved","message":…}` naming the store, since the change is not kept.
struct StateSavedMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let provider: AppleIDProvider
    static let tenantsPath = AdminRoutes.prefix + "/tenants"
    /// The longest body read before a request of a shared world enters its hold.
    let maxBodySize: Int

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
            throw notSaved(error, context)
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
        try await waitUntilSaved(ticket, context)
        if let wait = delay?.duration, wait > .zero { try await Task.sleep(for: wait) }
        return try outcome.get()
    }

    private func waitUntilSaved(_ ticket: SaveTicket, _ context: BasicRequestContext) async throws(AdminError) {
        do throws(StateStoreError) { try await provider.world.waitUntilSaved(ticket) } catch {
            throw notSaved(error, context)
        }
    }

    private func notSaved(_ error: StateStoreError, _ context: BasicRequestContext) -> AdminError {
        context.logger.error("state not saved: \(error.message)")
        return AdminError(status: .serviceUnavailable, code: "state_not_saved", message: "the change was not saved: \(error.message)")
    }
}
