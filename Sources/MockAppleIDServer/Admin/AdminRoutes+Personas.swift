import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    func registerPersonas(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("personas") { _, _ in try AdminResponse.json(provider.personas()) }
        admin.post("personas") { request, _ in
            let created = try await body(request, allowing: Persona.fieldNames).decode(Persona.self)
            try persona { () throws(PersonaError) in try provider.createPersona(created) }
            return try AdminResponse.json(created, status: .created)
        }
        admin.get("personas/{id}") { _, context in try AdminResponse.json(try current(context)) }
        admin.patch("personas/{id}") { request, context in try await updatePersona(request, context) }
        admin.post("personas/{id}/revoke-consent") { request, context in
            let id = try current(context).id
            guard let clientID = try await body(request, allowing: ["client"]).text("client"), !clientID.isEmpty else {
                throw AdminError.badRequest("client must name a client id or an app group's primary App ID")
            }
            try persona { () throws(PersonaError) in try provider.revokeConsent(personaID: id, clientID: clientID) }
            return try AdminResponse.json(try current(context))
        }
        admin.post("personas/{id}/delete-account") { _, context in
            let id = try current(context).id
            try persona { () throws(PersonaError) in try provider.deleteAccount(personaID: id) }
            return try AdminResponse.json(try current(context))
        }
        admin.get("auto-approve") { _, _ in try AdminResponse.json(AutoApproveView(autoApprove: provider.autoApprove())) }
        admin.put("auto-approve") { request, _ in
            let value = try await body(request, allowing: ["persona", "emailChoice"]).decode(AutoApprove.self)
            try persona { () throws(PersonaError) in try provider.setAutoApprove(value) }
            return try AdminResponse.json(AutoApproveView(autoApprove: value))
        }
        admin.delete("auto-approve") { _, _ in
            try persona { () throws(PersonaError) in try provider.setAutoApprove(nil) }
            return try AdminResponse.json(AutoApproveView(autoApprove: nil))
        }
    }

    /// Runs a persona operation, mapping its failure to the admin error shape (``AdminError/init(personaError:)``).
    private func persona(_ body: () throws(PersonaError) -> Void) throws(AdminError) {
        do { try body() } catch { throw AdminError(personaError: error) }
    }

    private func current(_ context: BasicRequestContext) throws(AdminError) -> Persona {
        let id = try pathParameter("id", context)
        guard let found = provider.persona(id) else { throw AdminError.notFound("persona \"\(id)\" does not exist") }
        return found
    }

    /// Merges the body's fields into the persona (`"email": null` removes the email); `id` cannot change.
    private func updatePersona(_ request: Request, _ context: BasicRequestContext) async throws(AdminError) -> Response {
        let existing = try current(context)
        let patch = try await body(request, allowing: Persona.fieldNames)
        if let id = patch["id"], id != .string(existing.id) { throw AdminError.badRequest("id cannot be changed") }
        guard let current = try? AdminResponse.encoder.encode(existing), let currentJSON = JSONValue.parse(current) else {
            throw AdminError(status: .internalServerError, code: "encoding_failed", message: "persona could not be encoded")
        }
        let updated = try currentJSON.merged(with: patch).decode(Persona.self)
        try persona { () throws(PersonaError) in try provider.updatePersona(updated) }
        return try AdminResponse.json(updated)
    }
}

extension AdminError {
    /// A persona operation's failure: 404 for a persona that does not exist, 409 `persona_exists` for an id
    /// taken, 400 `invalid_persona` for the rest.
    init(personaError error: PersonaError) {
        switch error {
        case .notFound: self = .notFound(error.description)
        case .alreadyExists: self.init(status: .conflict, code: "persona_exists", message: error.description)
        case .invalid: self.init(status: .badRequest, code: "invalid_persona", message: error.description)
        }
    }
}
