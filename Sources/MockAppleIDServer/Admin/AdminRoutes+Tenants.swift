import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// Tenants, on the server's own admin API: `GET /__admin/tenants`, `POST /__admin/tenants`
    /// (`{"name": …}` for a world of the server's scenario, plus `"yaml"`, `"file"` and `"files"` for
    /// another scenario's), `DELETE /__admin/tenants/{name}` (with everything it held).
    func registerTenants(_ tenants: TenantRegistry, on admin: RouterGroup<BasicRequestContext>) {
        admin.get("tenants") { _, _ in try AdminResponse.json(TenantsView(tenants)) }
        admin.post("tenants") { request, _ in
            let body = try await body(request, allowing: ["name", "yaml", "file", "files"])
            guard let name = try body.text("name") else { throw AdminError.badRequest("name is required") }
            let record = TenantRecord(name: name, scenarioYAML: try body.text("yaml"), scenarioFile: try body.text("file"),
                                      files: try files(in: body))
            let provider: AppleIDProvider
            do throws(TenantError) { provider = try await tenants.create(record) } catch { throw Self.adminError(error) }
            return try AdminResponse.json(TenantView(name: name, provider: provider), status: .created)
        }
        admin.delete("tenants/{name}") { _, context in
            let name = try pathParameter("name", context)
            let removed: Bool
            do throws(TenantError) { removed = try await tenants.remove(name) } catch { throw Self.adminError(error) }
            guard removed else { throw AdminError.notFound("no tenant named \"\(name.prefix(80))\"") }
            return AdminResponse.json(.object([("removed", .string(name))]))
        }
    }

    /// `files`: path to text, for the key files a scenario names.
    func files(in body: JSONValue) throws(AdminError) -> [String: String] {
        guard let sent = body["files"] else { return [:] }
        guard case let .object(members) = sent else { throw AdminError.badRequest("files must map each path to its text") }
        var files: [String: String] = [:]
        for (path, value) in members {
            guard let content = value.stringValue else { throw AdminError.badRequest("files must map each path to its text") }
            files[path] = content
        }
        return files
    }

    private static func adminError(_ error: TenantError) -> AdminError {
        switch error.base {
        case .exists, .busy: return AdminError(status: .conflict, code: "tenant_exists", message: error.description)
        case .full: return AdminError(status: .conflict, code: "tenants_full", message: error.description)
        case .notSaved: return AdminError(status: .serviceUnavailable, code: "state_not_saved", message: error.description)
        case .invalidName, .invalidScenario: return AdminError.badRequest(error.description)
        }
    }
}

/// A tenant: its name, its scenario, and the path its endpoints answer under.
struct TenantView: Encodable {
    let name: String
    let scenario: String
    let path: String

    init(name: String, provider: AppleIDProvider) {
        self.name = name
        scenario = provider.scenario.name
        path = TenantRegistry.pathPrefix + name
    }
}

/// `GET /__admin/tenants`.
struct TenantsView: Encodable {
    let tenants: [TenantView]

    init(_ registry: TenantRegistry) { tenants = registry.all.map { TenantView(name: $0.name, provider: $0.provider) } }
}
