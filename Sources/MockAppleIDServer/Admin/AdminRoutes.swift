import Foundation
import Hummingbird
import MockAppleID

/// The admin API under `/__admin`, on the same listener as Apple's endpoints. It calls the same
/// provider facade as the embedding library. See README.md, "Admin API".
struct AdminRoutes: Sendable {
    static let prefix = "/__admin"

    let provider: AppleIDProvider
    let configuration: ServerConfiguration

    func register(on router: Router<BasicRequestContext>) {
        let admin = router.group(RouterPath(Self.prefix))
        admin.get("health") { _, _ in
            AdminResponse.json(HealthView(status: "ok", scenario: provider.scenario.name))
        }
        admin.post("reset") { _, _ in
            await provider.reset()
            return AdminResponse.json(HealthView(status: "reset", scenario: provider.scenario.name))
        }
        admin.get("clock") { _, _ in AdminResponse.json(ClockView(provider.clock)) }
        admin.post("clock") { request, _ in await handle { () throws(AdminError) in try await changeClock(request) } }
        admin.get("personas") { _, _ in AdminResponse.json(await provider.personas()) }
        admin.post("personas") { request, _ in await handle { () throws(AdminError) in try await createPersona(request) } }
        admin.get("personas/{id}") { _, context in
            await handle { () throws(AdminError) in AdminResponse.json(try await currentPersona(context)) }
        }
        admin.patch("personas/{id}") { request, context in
            await handle { () throws(AdminError) in try await updatePersona(request, context) }
        }
        admin.get("auto-approve") { _, _ in AdminResponse.json(AutoApproveView(autoApprove: await provider.autoApprove())) }
        admin.put("auto-approve") { request, _ in await handle { () throws(AdminError) in try await setAutoApprove(request) } }
        admin.delete("auto-approve") { _, _ in
            await handle { () throws(AdminError) in
                try await mappingPersonaError { () throws(PersonaError) in try await provider.setAutoApprove(nil) }
                return AdminResponse.json(AutoApproveView(autoApprove: nil))
            }
        }
        admin.get("journal") { request, _ in
            let after = request.uri.queryParameters.get("after").flatMap { Int($0) } ?? 0
            return AdminResponse.json(JournalView(entries: provider.journal.entries(after: after)))
        }
    }

    private func handle(_ body: () async throws(AdminError) -> Response) async -> Response {
        do { return try await body() } catch { return error.response }
    }

    /// Runs a persona operation, mapping its failure to the admin error shape.
    private func mappingPersonaError(_ body: () async throws(PersonaError) -> Void) async throws(AdminError) {
        do { try await body() } catch {
            let notFound: Bool
            if case .notFound = error { notFound = true } else { notFound = false }
            throw AdminError(status: notFound ? .notFound : .badRequest, code: notFound ? "not_found" : "invalid_persona",
                             message: error.description)
        }
    }

    /// `{"set": ISO 8601 text or epoch seconds, "advance": seconds, "frozen": bool}`; any subset.
    private func changeClock(_ request: Request) async throws(AdminError) -> Response {
        let body = try await request.adminJSON(maxSize: configuration.maxBodySize)
        let frozen = body["frozen"].flatMap(\.boolValue)
        if body["frozen"] != nil && frozen == nil { throw AdminError.badRequest("frozen must be true or false") }
        if let set = body["set"] {
            let date: Date
            if let seconds = set.int64Value {
                date = Date(timeIntervalSince1970: TimeInterval(seconds))
            } else if case let .double(seconds) = set {
                date = Date(timeIntervalSince1970: seconds)
            } else if let text = set.stringValue, let parsed = ISO8601DateFormatter().date(from: text) {
                date = parsed
            } else {
                throw AdminError.badRequest("set must be epoch seconds or an ISO 8601 time such as 2026-01-01T09:00:00Z")
            }
            provider.clock.set(to: date, frozen: frozen ?? provider.clock.isFrozen)
        } else if let frozen {
            provider.clock.set(to: provider.clock.now, frozen: frozen)
        }
        if let advance = body["advance"] {
            guard let seconds = advance.int64Value.map(Double.init) ?? { if case let .double(value) = advance { value } else { nil } }() else {
                throw AdminError.badRequest("advance must be a number of seconds")
            }
            provider.clock.advance(by: seconds)
        }
        return AdminResponse.json(ClockView(provider.clock))
    }

    private func createPersona(_ request: Request) async throws(AdminError) -> Response {
        let created = try await request.adminJSON(maxSize: configuration.maxBodySize).decode(Persona.self)
        try await mappingPersonaError { () throws(PersonaError) in try await provider.createPersona(created) }
        return AdminResponse.json(created, status: .created)
    }

    private func currentPersona(_ context: BasicRequestContext) async throws(AdminError) -> Persona {
        let id = context.parameters.get("id") ?? ""
        guard let found = await provider.persona(id) else {
            throw AdminError(status: .notFound, code: "not_found", message: "persona \"\(id)\" does not exist")
        }
        return found
    }

    /// Merges the body's fields into the persona (`"email": null` removes the email); `id` cannot change.
    private func updatePersona(_ request: Request, _ context: BasicRequestContext) async throws(AdminError) -> Response {
        let existing = try await currentPersona(context)
        let patch = try await request.adminJSON(maxSize: configuration.maxBodySize)
        if let id = patch["id"], id != .string(existing.id) { throw AdminError.badRequest("id cannot be changed") }
        guard let current = try? AdminResponse.encoder.encode(existing), let currentJSON = JSONValue.parse(current) else {
            throw AdminError(status: .internalServerError, code: "encoding_failed", message: "persona could not be encoded")
        }
        let updated = try currentJSON.merged(with: patch).decode(Persona.self)
        try await mappingPersonaError { () throws(PersonaError) in try await provider.updatePersona(updated) }
        return AdminResponse.json(updated)
    }

    private func setAutoApprove(_ request: Request) async throws(AdminError) -> Response {
        let value = try await request.adminJSON(maxSize: configuration.maxBodySize).decode(AutoApprove.self)
        try await mappingPersonaError { () throws(PersonaError) in try await provider.setAutoApprove(value) }
        return AdminResponse.json(AutoApproveView(autoApprove: value))
    }
}
