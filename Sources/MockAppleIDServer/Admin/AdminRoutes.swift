import Foundation
import HTTPTypes
import Hummingbird
import MockAppleID

/// The admin API under `/__admin`, on the same listener as Apple's endpoints. It calls the same
/// provider facade as the embedding library, and its errors render themselves. See docs/admin-api.md.
struct AdminRoutes: Sendable {
    static let prefix = "/__admin"

    let provider: AppleIDProvider
    let configuration: ServerConfiguration
    /// The server's tenants (nil on a tenant's own admin API).
    let tenants: TenantRegistry?
    /// Where the server listens, once it does.
    let listeners: BoundListeners

    func register(on router: RecordingRouter, saving: SavedBeforeAnswering) {
        // Guarded by ``AdminGuard``, which the server checks before routing.
        let admin = router.group(RouterPath(Self.prefix)).add(middleware: AdminMiddleware(saving: saving))
        admin.get("health") { _, _ in
            try AdminResponse.json(HealthView(status: "ok", scenario: provider.scenario.name,
                                              listeners: listeners.current?.under(configuration.pathPrefix)))
        }
        admin.get("openapi.yaml") { _, _ in
            let document = tenants == nil ? AdminOpenAPIDocument.tenant(base: configuration.pathPrefix) : AdminOpenAPIDocument.server
            return Response(status: .ok, headers: [.contentType: "application/yaml"], body: ResponseBody(byteBuffer: document))
        }
        // The dashboard: the same information as a page, with the admin API's actions; and its script.
        admin.get("") { _, _ in
            var page = AppleResponse.html(DashboardPage.render(provider, prefix: configuration.pathPrefix + Self.prefix))
            page.headers[.contentSecurityPolicy] = DashboardPage.contentSecurityPolicy
            return page
        }
        admin.get("dashboard.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: DashboardScript.bytes))
        }
        admin.post("reset") { _, _ in
            provider.reset()
            return try AdminResponse.json(HealthView(status: "reset", scenario: provider.scenario.name, listeners: nil))
        }
        admin.get("journal") { request, _ in
            try AdminResponse.json(JournalView(entries: provider.journal.entries(after: try after(request))))
        }
        admin.get("events") { request, _ in
            try AdminResponse.json(EventsView(provider.world.events.events(after: try after(request))))
        }
        registerEventStream(on: admin)
        registerClock(on: admin)
        registerPersonas(on: admin)
        registerKeys(on: admin)
        registerFaults(on: admin)
        registerNativeSignIn(on: admin)
        registerTimeline(on: admin)
        registerNotifications(on: admin)
        registerRelay(on: admin)
        registerTransfers(on: admin)
        for route in configuration.adminRoutes { registerStreaming(route, on: admin) }
        if let tenants { registerTenants(tenants, on: admin) }
    }

    /// `?after=N`: a sequence number (0 when absent).
    func after(_ request: Request) throws(AdminError) -> Int {
        guard let text = request.uri.queryParameters.get("after") else { return 0 }
        guard let value = Int(text), value >= 0 else { throw AdminError.badRequest("after must be a whole number 0 or more") }
        return value
    }

    /// The path parameter `name`, percent-decoded (`/personas/jos%C3%A9` names the persona `josé`); 400
    /// when it is not valid percent-encoding of UTF-8.
    func pathParameter(_ name: String, _ context: BasicRequestContext) throws(AdminError) -> String {
        guard let decoded = (context.parameters.get(name) ?? "").percentDecoded else {
            throw AdminError.badRequest("the path's \(name) is not valid percent-encoding of UTF-8")
        }
        return decoded
    }

    /// A request's `at` when the mock clock has not reached it yet (the change is scheduled, 202), else nil
    /// (no `at`, or one already reached: the change is made now, checked).
    func dateAhead(_ at: Date?) -> Date? {
        at.flatMap { $0 > provider.clock.now ? $0 : nil }
    }

    /// The request's JSON object body; a member not in `fields` is refused, naming the ones allowed.
    func body(_ request: Request, allowing fields: [String]) async throws(AdminError) -> JSONValue {
        let body = try await request.adminJSON(maxSize: configuration.maxBodySize)
        try body.requireOnly(fields)
        return body
    }
}
