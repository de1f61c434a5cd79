import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    func registerPersonas(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("personas") { _, _ in try AdminResponse.json(provider.personas()) }
        admin.post("personas") { request, _ in
            let created = try await body(request, allowing: Persona.fieldNames).decode(Persona.self)
            try provider.createPersona(created)
            return try AdminResponse.json(created, status: .created)
        }
        admin.get("personas/{id}") { _, context in try AdminResponse.json(try current(context)) }
        admin.patch("personas/{id}") { request, context in try await updatePersona(request, context) }
        admin.post("personas/{id}/revoke-consent") { request, context in
            let id = try current(context).id
            guard let clientID = try await body(request, allowing: ["client"]).text("client"), !clientID.isEmpty else {
                throw AdminError.badRequest("client must name a client id or an app group's primary App ID")
            }
            try provider.revokeConsent(personaID: id, clientID: clientID)
            return try AdminResponse.json(try current(context))
        }
        admin.post("personas/{id}/delete-account") { _, context in
            let id = try current(context).id
            try provider.deleteAccount(personaID: id)
            return try AdminResponse.json(try current(context))
        }
        admin.get("auto-approve") { _, _ in try AdminResponse.json(AutoApproveView(autoApprove: provider.autoApprove())) }
        admin.put("auto-approve") { request, _ in
            let value = try await body(request, allowing: ["persona", "emailChoice"]).decode(AutoApprove.self)
            try provider.setAutoApprove(value)
            return try AdminResponse.json(AutoApproveView(autoApprove: value))
        }
        admin.delete("auto-approve") { _, _ in
            try provider.setAutoApprove(nil)
            return try AdminResponse.json(AutoApproveView(autoApprove: nil))
        }
    }

    private func current(_ context: BasicRequestContext) throws(AdminError) -> Persona {
        let id = try pathParameter("id", context)
        guard let found = provider.persona(id) else { throw AdminError.notFound("persona \"\(id)\" does not exist") }
        return found
    }

    /// Merges the body's fields into the persona (`"email": null` removes the email); `id` cannot change.
    private func updatePersona(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let existing = try current(context)
        let patch = try await body(request, allowing: Persona.fieldNames)
        if let id = patch["id"], id != .string(existing.id) { throw AdminError.badRequest("id cannot be changed") }
        guard let current = try? AdminResponse.encoder.encode(existing), let currentJSON = JSONValue.parse(current) else {
            throw AdminError(status: .internalServerError, code: "encoding_failed", message: "persona could not be encoded")
        }
        let updated = try currentJSON.merged(with: patch).decode(Persona.self)
        try provider.updatePersona(updated)
        return try AdminResponse.json(updated)
    }
}
