import HTTPTypes
import Hummingbird

/// Every request's first stop, before any route: a tenant's (`/t/NAME/…`) goes to that tenant's own
/// responder with the prefix taken off (`/t/ci-7/auth/keys` is the tenant's `/auth/keys`; an unknown
/// tenant gets 404 in the admin API's shape); a request to the admin API must pass its guard; the rest
/// go to the routes, and a path they serve under other methods answers 405 with `Allow` instead of 404.
public struct ServerResponder: HTTPResponder {
    public typealias Context = BasicRequestContext

    let routes: RouterResponder<BasicRequestContext>
    /// Which methods each path answers.
    let table: RouteTable
    let adminGuard: AdminGuard
    /// The tenants, on the server's own responder (nil on a tenant's).
    let tenants: TenantRegistry?
    /// The listener's scheme, which picks a tenant's responder.
    let scheme: String

    public func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        do {
            if let tenants, let path = request.head.path, path.hasPrefix(TenantRegistry.pathPrefix) {
                return try await dispatch(request, path: path, to: tenants, context: context)
            }
            if AdminGuard.covers(request.uri.path) { try adminGuard.check(request) }
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        }
        let response = try await routes.respond(to: request, context: context)
        guard response.status == .notFound else { return response }
        let allowed = table.methods(for: request.uri.path)
        guard !allowed.isEmpty, !allowed.contains(request.method) else { return response }
        return try HTTPError(.methodNotAllowed, headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
            .response(from: request, context: context)
    }

    private func dispatch(_ request: Request, path: String, to tenants: TenantRegistry,
                          context: BasicRequestContext) async throws -> Response {
        let rest = path.dropFirst(TenantRegistry.pathPrefix.count)
        let nameEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard let responder = await responder(name, of: tenants) else {
            throw AdminError.notFound("no tenant named \"\(name.prefix(80))\"; POST /__admin/tenants makes one")
        }
        var head = request.head
        let tail = rest[nameEnd...]
        head.path = tail.hasPrefix("/") ? String(tail) : "/" + tail
        return try await responder.respond(to: Request(head: head, body: request.body), context: context)
    }

    /// The tenant's responder; a tenant another server sharing the database made is served from now on.
    private func responder(_ name: String, of tenants: TenantRegistry) async -> ServerResponder? {
        if let known = tenants.responder(name, scheme: scheme) { return known }
        guard await tenants.join(name) else { return nil }
        return tenants.responder(name, scheme: scheme)
    }
}

/// Builds a ``ServerResponder`` for a Hummingbird application (`Application(router:)`).
public struct ServerRouter: HTTPResponderBuilder {
    let router: Router<BasicRequestContext>
    let table: RouteTable
    let adminGuard: AdminGuard
    let tenants: TenantRegistry?
    let scheme: String

    public func buildResponder() -> ServerResponder {
        ServerResponder(routes: router.buildResponder(), table: table, adminGuard: adminGuard, tenants: tenants, scheme: scheme)
    }
}
