import Foundation
import MockAppleID

/// The dashboard at the admin prefix (`GET /__admin`): what the world holds now (the clock, the personas
/// with the apps they signed in to and their relay addresses, the apps, notification deliveries not yet
/// delivered, the latest requests) and the admin API's actions beside what they act on. Each action is a
/// form that the page's script (``DashboardScript``) sends as a same-origin JSON call to the admin API,
/// so the admin API's guard applies to it as to any client; the script follows the event stream and
/// refreshes the page's sections as the world changes.
enum DashboardPage {
    /// The most journal entries shown (newest first), and the most deliveries.
    static let recentRequests = 50
    static let shownDeliveries = 100

    static func render(_ provider: AppleIDProvider, prefix: String) -> String {
        let clock = provider.clock
        let directory = provider.directory
        let addresses = provider.relayAddresses()
        let people = provider.personas()
        let personas = people.map { persona in
            let consents = provider.consents(personaID: persona.id).map { SignedIn(groupID: $0.groupID) }
            let relay = addresses.filter { $0.personaID == persona.id }.map { address in
                RelayAddressRow(address: address.address, teamID: address.teamID, appGroups: address.appGroups.joined(separator: ", "),
                                forwarding: address.forwarding, app: address.appGroups.first ?? "", turnOn: !address.forwarding)
            }
            return PersonaRow(
                id: persona.id, path: pathComponent(persona.id), name: "\(persona.firstName) \(persona.lastName)",
                email: persona.email ?? "(none)", emailChoice: persona.emailChoice.rawValue, managed: persona.managed,
                deleted: provider.isDeleted(personaID: persona.id), apps: consents, hasApps: !consents.isEmpty,
                addresses: relay, hasAddresses: !relay.isEmpty)
        }
        let teams = directory.teams.keys.sorted()
        let groups = directory.groups.values.sorted { $0.primaryAppID < $1.primaryAppID }.map { group in
            AppRow(primaryAppID: group.primaryAppID, path: pathComponent(group.primaryAppID), teamID: group.teamID,
                   clients: directory.clients.filter { $0.groupID == group.primaryAppID }.map {
                       Client(id: $0.id, detail: ([$0.kind.rawValue] + $0.returnURLs).joined(separator: " · "))
                   },
                   notificationURL: group.notificationURL ?? "(none)", otherTeams: teams.filter { $0 != group.teamID }.map(Choice.init),
                   hasOtherTeams: teams.count > 1,
                   personas: people.map { Choice($0.id) }, notificationTypes: NotificationType.allCases.map { Choice($0.rawValue) })
        }
        let waiting = provider.notificationDeliveries().filter { $0.status != .delivered }.suffix(shownDeliveries).map { delivery in
            Delivery(type: delivery.notification.type.rawValue, personaID: delivery.notification.personaID,
                     app: delivery.notification.groupID, status: delivery.status.rawValue, attempts: delivery.attempts.count,
                     nextAttempt: delivery.nextAttempt.map { $0.formatted(.iso8601) } ?? "—", url: delivery.url)
        }
        let requests = provider.journal.entries(after: 0).suffix(recentRequests).reversed().map { entry in
            Request(time: entry.time.formatted(.iso8601), method: entry.method, endpoint: entry.endpoint,
                    clientID: entry.clientID ?? "—", status: entry.status, error: entry.error ?? "", reason: entry.reason,
                    failed: entry.status >= 400)
        }
        let model = Model(scenario: provider.scenario.name, now: clock.now.formatted(.iso8601),
                          clockMode: clock.isFrozen ? "frozen" : "running", prefix: prefix,
                          after: provider.world.events.nextSequence - 1,
                          personas: personas, apps: groups, deliveries: Array(waiting), requests: Array(requests),
                          hasDeliveries: !waiting.isEmpty, hasRequests: !requests.isEmpty)
        return PageTemplates.render(model, with: "dashboard")
    }

    /// `value` as one path component of an admin URL (a persona id may hold any character; `.` and `..`,
    /// which a browser would resolve away, are escaped).
    static func pathComponent(_ value: String) -> String {
        guard value != ".", value != ".." else { return String(repeating: "%2E", count: value.count) }
        return value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "%"])) ?? value
    }

    /// The headers the page is served with: it runs only its own script and talks only to its own origin.
    static let contentSecurityPolicy = "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'"

    struct Model {
        let scenario: String
        let now: String
        let clockMode: String
        let prefix: String
        /// The last event's sequence number when the page was made: the event stream is followed from there.
        let after: Int
        let personas: [PersonaRow]
        let apps: [AppRow]
        let deliveries: [Delivery]
        let requests: [Request]
        // Stored, not computed: templates read a model's stored properties only.
        let hasDeliveries: Bool
        let hasRequests: Bool
    }

    struct PersonaRow {
        let id: String
        /// The id as a path component of the admin API.
        let path: String
        let name: String
        let email: String
        let emailChoice: String
        let managed: Bool
        let deleted: Bool
        let apps: [SignedIn]
        let hasApps: Bool
        let addresses: [RelayAddressRow]
        let hasAddresses: Bool
    }

    /// An app group the persona signed in to.
    struct SignedIn {
        let groupID: String
    }

    struct RelayAddressRow {
        let address: String
        let teamID: String
        let appGroups: String
        let forwarding: Bool
        /// An app group using the address, to name its team in the forwarding call.
        let app: String
        /// What the forwarding button sets.
        let turnOn: Bool
    }

    struct AppRow {
        let primaryAppID: String
        let path: String
        let teamID: String
        let clients: [Client]
        let notificationURL: String
        let otherTeams: [Choice]
        let hasOtherTeams: Bool
        let personas: [Choice]
        let notificationTypes: [Choice]
    }

    /// One option of a `<select>`.
    struct Choice {
        let value: String
        init(_ value: String) { self.value = value }
    }

    struct Client {
        let id: String
        /// Native or web, and a web client's return URLs.
        let detail: String
    }

    struct Delivery {
        let type: String
        let personaID: String
        let app: String
        let status: String
        let attempts: Int
        let nextAttempt: String
        let url: String
    }

    struct Request {
        let time: String
        let method: String
        let endpoint: String
        let clientID: String
        let status: Int
        let error: String
        let reason: String
        let failed: Bool
    }
}
