import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import MockAppleIDServer
import Testing

/// The admin API's OpenAPI document (schemathesis checks the answers against it in the conformance suite).
@Suite("admin API's OpenAPI document")
struct AdminOpenAPITests {
    /// `METHOD path` for each operation the document names: its paths are the lines `  /__admin…:` and
    /// its operations the lines `    get:` and so on under them.
    static func documentedOperations() -> Set<String> {
        var operations = Set<String>()
        var path: String?
        for line in AdminOpenAPIDocument.text.split(separator: "\n", omittingEmptySubsequences: false) {
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

    @Test("it names every admin route the server registers, and nothing else")
    func everyRoute() throws {
        let provider = try Harness.provider()
        let configuration = ServerConfiguration()
        let table = RouteTable()
        let router = RecordingRouter(router: Router(context: BasicRequestContext.self), table: table)
        let tenants = TenantRegistry(scenario: provider.scenario, configuration: configuration, store: nil, logger: Logger(label: "test"))
        AdminRoutes(provider: provider, configuration: configuration, tenants: tenants).register(on: router)
        let registered = Set(table.registered.flatMap { route in route.methods.map { "\($0.rawValue) \(route.path)" } })
        #expect(registered.count > 40)
        #expect(registered.subtracting(Self.documentedOperations()).sorted() == [])
        #expect(Self.documentedOperations().subtracting(registered).sorted() == [])
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
        #expect(AdminOpenAPIDocument.yaml(base: "/t/job-a").contains("servers:\n  - url: /t/job-a\n"))
        #expect(AdminOpenAPIDocument.yaml(base: "/") == AdminOpenAPIDocument.text)
    }
}
