import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// The private email relay: `GET /__admin/relay/messages[?persona=&address=]` (the inboxes as JSON),
    /// `DELETE /__admin/relay/messages` (empty them), `GET /__admin/relay/addresses` (relay addresses in
    /// use), `GET /__admin/relay/inbox[?persona=]` (the inboxes as a page), and
    /// `PUT /__admin/teams/{team}/email-sources` (`{"sources": [domain or address, …]}`).
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
            let team = try pathParameter("team", context)
            let body = try await body(request, allowing: ["sources"])
            guard case let .array(items)? = body["sources"] else { throw AdminError.badRequest("sources must be a list of domains and addresses") }
            let sources = try items.map { item throws(AdminError) -> String in
                guard let text = item.stringValue else { throw AdminError.badRequest("each source must be text") }
                return text
            }
            do throws(EmailSourceError) { try provider.setEmailSources(sources, team: team) } catch {
                switch error {
                case .unknownTeam: throw AdminError.notFound(error.description)
                case .invalid: throw AdminError.badRequest(error.description)
                }
            }
            let registered = provider.directory.teams[team]?.emailSources ?? []
            return AdminResponse.json(JSONValue.object([("team", .string(team)), ("sources", .array(registered.map(JSONValue.string)))]))
        }
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
