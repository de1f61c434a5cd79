import NIOCore
import Yams

/// The admin API's OpenAPI 3.1 document (`openapi.yaml` beside this file, compiled into the binary),
/// served at `/__admin/openapi.yaml` and checked against the running server in CI (schemathesis).
/// `AdminOpenAPITests` checks that it names every admin route and no other, for the server and for a
/// tenant, and `AdminOpenAPIListsTests` that its lists of values are the code's.
enum AdminOpenAPIDocument {
    /// The document as written: the server's own admin API (at `/__admin`).
    static let text = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)

    /// The server's own admin API, as served.
    static let server = ByteBuffer(string: text)

    /// A tenant's admin API, under `base` (`/t/NAME`): the same operations but the tenants' own, which only
    /// the server's admin API has.
    static func tenant(base: String) -> ByteBuffer {
        ByteBuffer(string: tenantTemplate.replacingOccurrences(of: baseMark, with: base))
    }

    /// What the tenant's document puts where its base goes.
    private static let baseMark = "/__tenant_base__"

    /// The document made once from the parsed one: the paths under `/__admin/tenants`, the `tenants` tag
    /// and the schemas only they use removed, the server's URL a mark for the tenant's base.
    private static let tenantTemplate: String = {
        guard var document = (try? Yams.compose(yaml: text))?.mapping else { return text }
        if var paths = document["paths"]?.mapping {
            for key in paths.keys.compactMap(\.string) where key.hasPrefix("/__admin/tenants") { paths[key] = nil }
            document["paths"] = .mapping(paths)
        }
        if var tags = document["tags"]?.sequence {
            tags.removeAll { $0.mapping?["name"]?.string == "tenants" }
            document["tags"] = .sequence(tags)
        }
        if var components = document["components"]?.mapping, var schemas = components["schemas"]?.mapping {
            for key in schemas.keys.compactMap(\.string) where key.hasPrefix("Tenant") { schemas[key] = nil }
            components["schemas"] = .mapping(schemas)
            document["components"] = .mapping(components)
        }
        document["servers"] = .sequence(Node.Sequence([.mapping(Node.Mapping([("url", Node(baseMark))]))]))
        return (try? Yams.serialize(node: .mapping(document), width: -1)) ?? text
    }()
}

/// The admin API as its OpenAPI document describes it, for the CLI (`mock-appleid admin-api`) and the docs.
public enum AdminAPIReference {
    /// The OpenAPI 3.1 document, in YAML (what `/__admin/openapi.yaml` serves).
    public static var openAPIDocument: String { AdminOpenAPIDocument.text }

    /// Every operation, `METHOD path` and its summary, in the document's order, as a Markdown table: what
    /// docs/admin-api.md carries between its admin-api-operations marks.
    public static var operationsTable: String {
        let paths = (try? Yams.compose(yaml: AdminOpenAPIDocument.text))?["paths"]?.mapping ?? Node.Mapping([])
        var rows = ["| request | does |", "|---|---|"]
        for (path, operations) in paths {
            for (method, operation) in operations.mapping ?? Node.Mapping([]) {
                guard let method = method.string, let summary = operation["summary"]?.string else { continue }
                let text = summary.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
                rows.append("| `\(method.uppercased()) \(path.string ?? "")` | \(text) |")
            }
        }
        return rows.joined(separator: "\n")
    }
}
