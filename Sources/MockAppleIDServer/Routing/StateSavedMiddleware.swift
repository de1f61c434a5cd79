import Hummingbird
import Logging
import MockAppleID

/// Answers only once the changes a request made are saved, when the world is kept in a store
/// (`serve --state`): a code issued, a token minted or an admin write that was acknowledged outlives
/// the process. Without a store it costs one check. When the store cannot be written, the answer is
/// `503` with `{"error":"state_not_saved","message":…}` naming the store, since the change is not kept.
struct StateSavedMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let provider: AppleIDProvider

    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        let ticket = provider.world.requestStarted()
        defer { provider.world.requestEnded(ticket) }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            try await waitUntilSaved(ticket, context)
            throw error
        }
        try await waitUntilSaved(ticket, context)
        return response
    }

    private func waitUntilSaved(_ ticket: SaveTicket, _ context: BasicRequestContext) async throws(AdminError) {
        do throws(StateStoreError) { try await provider.world.waitUntilSaved(ticket) } catch {
            context.logger.error("state not saved: \(error.message)")
            throw AdminError(status: .serviceUnavailable, code: "state_not_saved", message: "the change was not saved: \(error.message)")
        }
    }
}
