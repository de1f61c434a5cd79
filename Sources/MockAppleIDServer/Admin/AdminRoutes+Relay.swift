import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// The private email relay: `GET /__admin/relay/messages[?persona=&address=]` (the inboxes as JSON),
    /// `DELETE /__admin/relay/messages` (empty them), `GET /__admin/relay/addresses` (relay addresses in
    /// use), `GET /__admin/relay/inbox[?persona=]` (the inboxes as a page), a team's email sources
    /// (`PUT /__admin/teams/{team}/email-sources` `{"sources": […]}` replaces them, `POST` `{"source": …}`
    /// adds one, `DELETE …/email-sources/{source}` removes one), and a persona's forwarding
    /// (`PUT /__admin/personas/{id}/relay-forwarding` `{"forwarding": bool, "app": client id or primary App ID}`,
    /// for every address of theirs without `app`).
    func registerRelay(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("relay/messages") { request, _ in
            let query = request.uri.queryParameters
            return try AdminResponse.json(RelayMessagesView(
                messages: provider.relayMessages(personaID: query.get("persona"), address: query.get("address"))))
        }
        admin.delete("relay/messages") { _, _ in
            AdminResponse.json(JSONValue.object([("cleared", .int(Int64(provider.clearRelayInboxes())))]))
        }
        admin.get("relay/addresses") { _, _ in try AdminResponse.json(RelayAddressesView(addresses: provider.relayAddresses())) }
        admin.get("relay/inbox") { request, _ in
            let persona = request.uri.queryParameters.get("persona")
            return AppleResponse.html(RelayInboxPage.render(messages: provider.relayMessages(personaID: persona),
                                                            addresses: provider.relayAddresses(), persona: persona))
        }
        admin.put("teams/{team}/email-sources") { request, context in
            let body = try await body(request, allowing: ["sources"])
            guard case let .array(items)? = body["sources"] else { throw AdminError.badRequest("sources must be a list of domains and addresses") }
            let sources = try items.map { item throws(AdminError) -> String in
                guard let text = item.stringValue else { throw AdminError.badRequest("each source must be text") }
                return text
            }
            return try changeSources(.replace(sources), context)
        }
        admin.post("teams/{team}/email-sources") { request, context in
            guard let source = try await body(request, allowing: ["source"]).text("source") else {
                throw AdminError.badRequest("source (a domain or an address) is required")
            }
            return try changeSources(.add([source]), context)
        }
        admin.delete("teams/{team}/email-sources/{source}") { _, context in
            try changeSources(.remove([try pathParameter("source", context)]), context)
        }
        admin.put("personas/{id}/relay-forwarding") { request, context in
            let id = try pathParameter("id", context)
            let body = try await body(request, allowing: ["forwarding", "app"])
            guard let forwarding = try body.flag("forwarding") else { throw AdminError.badRequest("forwarding (true or false) is required") }
            let app = try body.text("app")
            let addresses = try provider.setRelayForwarding(forwarding, personaID: id, app: app)
            return try AdminResponse.json(RelayForwardingView(persona: id, addresses: addresses))
        }
    }

    /// Changes the path's team's email sources; answers with them as they are now.
    private func changeSources(_ change: EmailSourceChange, _ context: BasicRequestContext) throws -> Response {
        let team = try pathParameter("team", context)
        let registered = try provider.changeEmailSources(change, team: team)
        return AdminResponse.json(JSONValue.object([("team", .string(team)), ("sources", .array(registered.map(JSONValue.string)))]))
    }
}

/// `GET /__admin/relay/messages`.
struct RelayMessagesView: Encodable {
    let messages: [RelayMessage]
}

/// `GET /__admin/relay/addresses`.
struct RelayAddressesView: Encodable {
    let addresses: [RelayAddress]
}

/// `PUT /__admin/personas/{id}/relay-forwarding`: the persona's relay addresses in use, each with its forwarding.
struct RelayForwardingView: Encodable {
    let persona: String
    let addresses: [RelayAddress]
}
