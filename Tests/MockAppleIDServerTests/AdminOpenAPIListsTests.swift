import Foundation
@testable import MockAppleID
import MockAppleIDAudit
@testable import MockAppleIDServer
import Testing
import Yams

/// The lists of values the admin API's OpenAPI document carries are the code's, so a value added in
/// Swift and forgotten in the document (or the other way round) fails here.
@Suite("admin API's OpenAPI document: lists of values")
struct AdminOpenAPIListsTests {
    private static var document: Node? { try? Yams.compose(yaml: AdminOpenAPIDocument.text) }

    /// The node at `path` (mapping keys, or sequence indexes written as numbers) under `components.schemas`.
    private static func schema(_ path: String...) -> Node? {
        var node = document?["components"]?["schemas"]
        for step in path { node = Int(step).flatMap { index in node?.sequence.map { $0[index] } } ?? node?[step] }
        return node
    }

    private static func strings(_ node: Node?) -> [String] {
        node?.sequence?.compactMap(\.string) ?? []
    }

    @Test("notification types, as sent and as accepted, and delivery statuses")
    func notifications() {
        #expect(Self.strings(Self.schema("NotificationType", "enum")) == NotificationType.allCases.map(\.rawValue))
        let accepted = Self.strings(Self.schema("NotificationRequest", "properties", "type", "enum"))
        #expect(accepted.joined(separator: ", ") == NotificationType.acceptedNames)
        #expect(accepted.allSatisfy { NotificationType(name: $0) != nil })
        #expect(Self.strings(Self.schema("NotificationDelivery", "properties", "status", "enum"))
            == NotificationDelivery.Status.allCases.map(\.rawValue))
    }

    @Test("timeline actions")
    func timelineSteps() {
        let documented = Self.strings(Self.schema("TimelineLoad", "properties", "timeline", "items", "properties", "do", "enum"))
        #expect(documented == TimelineReader.actions.map(\.name))
    }

    @Test("fault kinds, and the errors a token-error fault answers")
    func faults() {
        #expect(Self.strings(Self.schema("FaultSpec", "properties", "fault", "enum")) == Fault.kindNames)
        #expect(Set(Self.strings(Self.schema("FaultSpec", "properties", "error", "enum")))
            == [AppleErrorCode.invalidGrant.rawValue, AppleErrorCode.invalidClient.rawValue])
    }

    @Test("journal endpoints and channels, key algorithms")
    func journalAndKeys() {
        #expect(Self.strings(Self.schema("JournalEntry", "properties", "endpoint", "enum")) == AppleEndpoint.allCases.map(\.rawValue))
        #expect(Self.strings(Self.schema("JournalEntry", "properties", "via", "enum")) == Channel.allCases.map(\.rawValue))
        #expect(Self.strings(Self.schema("NewKey", "properties", "alg", "enum")) == JWSAlgorithm.allCases.map(\.rawValue))
    }

    @Test("the audit report's verdicts, severities and root causes")
    func auditReport() {
        let result = Self.schema("AuditReport", "properties", "cases", "items", "properties")
        #expect(Self.strings(result?["verdict"]?["enum"]) == Verdict.allCases.map(\.rawValue))
        #expect(Self.strings(result?["severity"]?["enum"]) == Severity.allCases.map(\.rawValue))
        let finding = Self.schema("AuditReport", "properties", "findings", "items", "properties")
        #expect(Self.strings(finding?["rootCause"]?["enum"]) == RootCause.allCases.map(\.rawValue))
        #expect(Self.strings(finding?["verdict"]?["enum"]) == Verdict.allCases.map(\.rawValue))
        #expect(Self.strings(finding?["severity"]?["enum"]) == Severity.allCases.map(\.rawValue))
    }

    @Test("the tenant's document is made from the parsed one: no tenants' paths, tag or schemas, the tenant's base")
    func tenantVariant() throws {
        let tenant = try #require(try Yams.compose(yaml: String(buffer: AdminOpenAPIDocument.tenant(base: "/t/job-a"))))
        let paths = tenant["paths"]?.mapping?.keys.compactMap(\.string) ?? []
        #expect(!paths.isEmpty && !paths.contains { $0.hasPrefix("/__admin/tenants") })
        #expect(!(tenant["tags"]?.sequence ?? []).contains { $0["name"]?.string == "tenants" })
        #expect(!(tenant["components"]?["schemas"]?.mapping?.keys.compactMap(\.string) ?? []).contains { $0.hasPrefix("Tenant") })
        #expect(tenant["servers"]?.sequence?.first?["url"]?.string == "/t/job-a")
        #expect(paths.count == (Self.document?["paths"]?.mapping?.count ?? 0) - 2)
    }
}
