import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
@testable import MockAppleIDServer
import MockAppleIDTesting
import Testing

/// The admin API's OpenAPI document (schemathesis checks the answers against it in the conformance suite).
@Suite("admin API's OpenAPI document")
struct AdminOpenAPITests {
    /// `METHOD path` for each operation the document names: its paths are the lines `  /__admin…:` and
    /// its operations the lines `    get:` and so on under them.
    static func documentedOperations(_ document: ByteBuffer = AdminOpenAPIDocument.server) -> Set<String> {
        var operations = Set<String>()
        var path: String?
        for line in String(buffer: document).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("  "), !line.hasPrefix("   ") {
                path = nil  // another member of `paths`, or of another top-level map
            } else if let current = path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.dropFirst(4).dropLast()
                if ["get", "post", "put", "patch", "delete"].contains(method) { operations.insert("\(method.uppercased()) \(current)") }
            }
        }
        return operations
    }

    /// `METHOD path` for each admin route registered for the server (with tenants) or for a tenant (without), with the
    /// routes `serve` adds (the audit's).
    static func registeredOperations(withTenants: Bool) throws -> Set<String> {
        let provider = try Harness.provider()
        var configuration = ServerConfiguration()
        configuration.adminRoutes = [AuditAdminRoute.make()]
        let table = RouteTable()
        let router = RecordingRouter(router: Router(context: BasicRequestContext.self), table: table)
        let tenants = withTenants
            ? TenantRegistry(scenario: provider.scenario, configuration: configuration, store: nil, listeners: BoundListeners(),
                             logger: Logger(label: "test")) : nil
        AdminRoutes(provider: provider, configuration: configuration, tenants: tenants, listeners: BoundListeners())
            .register(on: router, saving: SavedBeforeAnswering(provider: provider, maxBodySize: configuration.maxBodySize))
        return Set(table.registered.flatMap { route in route.methods.map { "\($0.rawValue) \(route.path)" } })
    }

    @Test("it names every admin route the server registers, and nothing else")
    func everyRoute() throws {
        let registered = try Self.registeredOperations(withTenants: true)
        #expect(registered.count > 40)
        #expect(registered.subtracting(Self.documentedOperations()).sorted() == [])
        #expect(Self.documentedOperations().subtracting(registered).sorted() == [])
    }

    @Test("a tenant's names every route of a tenant's admin API: all but the tenants' own")
    func tenantRoutes() throws {
        let registered = try Self.registeredOperations(withTenants: false)
        let documented = Self.documentedOperations(AdminOpenAPIDocument.tenant(base: "/t/job-a"))
        #expect(registered.count > 40)
        #expect(!documented.contains { $0.contains("tenants") })
        #expect(registered.subtracting(documented).sorted() == [])
        #expect(documented.subtracting(registered).sorted() == [])
    }

    @Test("served at the admin prefix as YAML; a tenant's names the tenant's base")
    func served() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            try await client.execute(uri: "/__admin/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/yaml")
                #expect(String(buffer: response.body).hasPrefix("openapi: 3.1.0\n"))
            }
        }
        let tenant = String(buffer: AdminOpenAPIDocument.tenant(base: "/t/job-a"))
        #expect(tenant.hasPrefix("openapi: 3.1.0\n") && tenant.contains("url: /t/job-a\n") && tenant.contains("\ncomponents:\n"))
        #expect(String(buffer: AdminOpenAPIDocument.server) == AdminOpenAPIDocument.text)
    }
}
