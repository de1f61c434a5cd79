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

    @Test("the fault oneOf: each fault in one branch, by what the reader requires of it (seconds, error, or nothing more)")
    func faultBranches() {
        let branches = Self.schema("FaultSpec", "oneOf")?.sequence ?? []
        let named = branches.map { branch in
            Set(Self.strings(branch["properties"]?["fault"]?["enum"]) + [branch["properties"]?["fault"]?["const"]?.string].compactMap { $0 })
        }
        let required = branches.map { Set(Self.strings($0["required"])) }
        #expect(named.count == 3)
        #expect(named.map(\.count).reduce(0, +) == Fault.kindNames.count)
        #expect(named.reduce(Set<String>()) { $0.union($1) } == Set(Fault.kindNames))
        // What the code requires of each fault: a bare `{"fault": name}` is refused for want of seconds or error.
        func needs(_ name: String) -> Set<String> {
            do { _ = try Fault(spec: .object([("fault", .string(name))])); return [] } catch {
                return error.description.hasPrefix("seconds") ? ["seconds"] : error.description.contains("\"error\"") ? ["error"] : ["?"]
            }
        }
        for (faults, required) in zip(named, required) {
            for fault in faults { #expect(needs(fault) == required, "\(fault)") }
        }
    }

    @Test("the domain events' kinds, as /__admin/events names them")
    func eventKinds() throws {
        let documented = Self.strings(Self.schema("Event", "properties", "event", "propertyNames", "enum"))
        #expect(documented == DomainEvent.Kind.allCases.map(\.rawValue))
        // An event's JSON form names its one member after its kind.
        let events: [DomainEvent] = [.worldReset, .keyAdded(kid: "k"), .relayInboxesCleared(count: 1),
                                     .consentRevoked(personaID: "p", groupID: "g", cause: .userRevoked)]
        for event in events {
            let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(event)) as? [String: Any]
            #expect(object.map { Array($0.keys) } == [event.kind.rawValue])
        }
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
