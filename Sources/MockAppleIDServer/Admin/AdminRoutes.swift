import Foundation
import HTTPTypes
import Hummingbird
import MockAppleID

/// The admin API under `/__admin`, on the same listener as Apple's endpoints. It calls the same
/// provider facade as the embedding library, and its errors render themselves. See README.md, "Admin API".
struct AdminRoutes: Sendable {
    static let prefix = "/__admin"

    let provider: AppleIDProvider
    let configuration: ServerConfiguration

    func register(on router: Router<BasicRequestContext>) {
        let admin = router.group(RouterPath(Self.prefix)).add(middleware: AdminGuard())
        admin.get("health") { _, _ in try AdminResponse.json(HealthView(status: "ok", scenario: provider.scenario.name)) }
        admin.post("reset") { _, _ in
            provider.reset()
            return try AdminResponse.json(HealthView(status: "reset", scenario: provider.scenario.name))
        }
        admin.get("journal") { request, _ in
            try AdminResponse.json(JournalView(entries: provider.journal.entries(after: try after(request))))
        }
        admin.get("events") { request, _ in
            try AdminResponse.json(EventsView(provider.world.events.events(after: try after(request))))
        }
        registerClock(on: admin)
        registerPersonas(on: admin)
        registerKeys(on: admin)
        registerFaults(on: admin)
        registerNativeSignIn(on: admin)
        registerTimeline(on: admin)
        registerNotifications(on: admin)
        registerRelay(on: admin)
        registerTransfers(on: admin)
    }

    /// `?after=N`: a sequence number (0 when absent).
    private func after(_ request: Request) throws(AdminError) -> Int {
        guard let text = request.uri.queryParameters.get("after") else { return 0 }
        guard let value = Int(text), value >= 0 else { throw AdminError.badRequest("after must be a whole number 0 or more") }
        return value
    }

    func body(_ request: Request) async throws(AdminError) -> JSONValue {
        try await request.adminJSON(maxSize: configuration.maxBodySize)
    }
}

/// Refuses admin requests from other sites: a browser marks them with `Sec-Fetch-Site` or an
/// `Origin` that is not the server's own, so a page the developer visits cannot drive the admin API.
struct AdminGuard: RouterMiddleware {
    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            throw AdminError(status: .forbidden, code: "cross_site", message: "the admin API refuses requests from other sites (Sec-Fetch-Site: \(site))")
        }
        if let origin = request.headers[HTTPField.Name("Origin")!] {
            let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
            guard host != nil, host == request.head.authority else {
                throw AdminError(status: .forbidden, code: "cross_site", message: "the admin API refuses requests from other origins (Origin: \(origin))")
            }
        }
        return try await next(request, context)
    }
}
