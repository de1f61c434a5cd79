import Hummingbird
import MockAppleID

/// Around every admin route (the guard has admitted the caller before routing): a write must be declared
/// `Content-Type: application/json` (which a cross-site form cannot send; checked on the routes, so that a
/// path that does not take the method answers 405 first); the request runs under
/// ``SavedBeforeAnswering``, a store that cannot be used answering
/// `503 {"error":"state_not_saved","message":…}`; and a refusal of the world's operations (``Refusal``) is
/// answered in the admin API's shape, here alone.
struct AdminMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let saving: SavedBeforeAnswering
    static let tenantsPath = AdminRoutes.prefix + "/tenants"
    let failures = ThrottledLog()

    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        if AdminGuard.writeMethods.contains(request.method) { try request.requireJSONContentType() }
        // Making or removing a tenant changes the store, not this world: it must not hold the world (and
        // every other server) while it parses a scenario and writes the tenant down.
        if saving.provider.world.isShared, request.uri.path.hasPrefix(Self.tenantsPath) { return try await answer(request, context, next) }
        let outcome: Result<Response, any Error>
        do throws(StateStoreError) {
            outcome = try await saving.run(request, as: .request) { request in try await answer(request, context, next) }
        } catch {
            failures.error(context.logger, "state not saved (\(request.method) \(request.uri.path.prefix(200))): \(error.message)")
            throw AdminError(status: .serviceUnavailable, code: "state_not_saved", message: "the change was not saved: \(error.message)")
        }
        return try outcome.get()
    }

    private func answer(_ request: Request, _ context: BasicRequestContext,
                        _ next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch let refusal as any Refusal { throw AdminError(refusal) }
    }
}

extension AdminError {
    /// A refusal of the world's operations in the admin API's shape: 400, 404 or 409 by its kind, its code
    /// and its description.
    init(_ refusal: any Refusal) {
        let status: HTTPResponse.Status
        switch refusal.kind {
        case .invalid: status = .badRequest
        case .notFound: status = .notFound
        case .conflict: status = .conflict
        }
        self.init(status: status, code: refusal.code, message: refusal.description)
    }
}
