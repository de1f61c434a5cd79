import HTTPTypes
import Hummingbird

/// Hands a request under `/t/<tenant>/` to that tenant's router, with the prefix taken off the path
/// (`/t/ci-7/auth/keys` is the tenant's `/auth/keys`); an unknown tenant gets 404 in the admin API's
/// error shape. Every other request goes on to the server's own routes.
struct TenantDispatchMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let tenants: TenantRegistry
    /// The listener's scheme, which picks the tenant's router.
    let scheme: String

    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        guard let path = request.head.path, path.hasPrefix(TenantRegistry.pathPrefix) else { return try await next(request, context) }
        let rest = path.dropFirst(TenantRegistry.pathPrefix.count)
        let nameEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard let responder = await responder(name) else {
            throw AdminError.notFound("no tenant named \"\(name.prefix(80))\"; POST /__admin/tenants makes one")
        }
        var head = request.head
        let tail = rest[nameEnd...]
        head.path = tail.hasPrefix("/") ? String(tail) : "/" + tail
        return try await responder.respond(to: Request(head: head, body: request.body), context: context)
    }

    /// The tenant's router; a tenant another server sharing the database made is served from now on.
    private func responder(_ name: String) async -> RouterResponder<BasicRequestContext>? {
        if let known = tenants.responder(name, scheme: scheme) { return known }
        guard await tenants.join(name) else { return nil }
        return tenants.responder(name, scheme: scheme)
    }
}
