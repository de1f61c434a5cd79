import Foundation
import MockAppleID

/// The dashboard at the admin prefix (`GET /__admin`): what the world holds now, for a person to look
/// at: the clock, the personas, the apps and their clients, notification deliveries not yet delivered,
/// and the latest requests. Read-only; the JSON API under the same prefix changes things.
enum DashboardPage {
    /// The most journal entries shown (newest first), and the most deliveries.
    static let recentRequests = 50
    static let shownDeliveries = 100

    static func render(_ provider: AppleIDProvider, prefix: String) -> String {
        let clock = provider.clock
        let directory = provider.directory
        let personas = provider.personas().map { persona in
            Persona(id: persona.id, name: "\(persona.firstName) \(persona.lastName)", email: persona.email ?? "(none)",
                    emailChoice: persona.emailChoice.rawValue, managed: persona.managed)
        }
        let groups = directory.groups.values.sorted { $0.primaryAppID < $1.primaryAppID }.map { group in
            App(primaryAppID: group.primaryAppID, teamID: group.teamID,
                clients: directory.clients.filter { $0.groupID == group.primaryAppID }.map {
                    Client(id: $0.id, detail: ([$0.kind.rawValue] + $0.returnURLs).joined(separator: " · "))
                },
                notificationURL: group.notificationURL ?? "(none)")
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
                          personas: personas, apps: groups, deliveries: Array(waiting), requests: Array(requests),
                          hasDeliveries: !waiting.isEmpty, hasRequests: !requests.isEmpty)
        return PageTemplates.render(model, with: "dashboard")
    }

    struct Model {
        let scenario: String
        let now: String
        let clockMode: String
        let prefix: String
        let personas: [Persona]
        let apps: [App]
        let deliveries: [Delivery]
        let requests: [Request]
        // Stored, not computed: templates read a model's stored properties only.
        let hasDeliveries: Bool
        let hasRequests: Bool
    }

    struct Persona {
        let id: String
        let name: String
        let email: String
        let emailChoice: String
        let managed: Bool
    }

    struct App {
        let primaryAppID: String
        let teamID: String
        let clients: [Client]
        let notificationURL: String
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

    static let template = """
        {{<page}}
        {{$title}}mock-appleid: {{scenario}}{{/title}}
        {{$body}}
        <style>
        body { max-width: 72rem; } table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d2d2d7; vertical-align: top; }
        ol.journal { padding-left: 1.2rem; font-size: .9rem; } ol.journal li { margin: .3rem 0; }
        a:focus { outline: 3px solid #0071e3; }
        </style>
        <header>
        <h1>mock-appleid</h1>
        <p class="note">Scenario <strong>{{scenario}}</strong> · clock {{clockMode}} at <time>{{now}}</time> ·
        <a href="{{prefix}}">Reload</a> · <a href="{{prefix}}/relay/inbox">Relay inboxes</a> ·
        JSON: <a href="{{prefix}}/personas">personas</a>, <a href="{{prefix}}/journal">journal</a>,
        <a href="{{prefix}}/notifications">notifications</a>, <a href="{{prefix}}/clock">clock</a></p>
        </header>
        <main>
        <section aria-labelledby="personas"><h2 id="personas">Personas</h2>
        <table><thead><tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Email choice</th><th scope="col">Account</th></tr></thead>
        <tbody>{{#personas}}<tr><td><code>{{id}}</code></td><td>{{name}}</td><td>{{email}}</td><td>{{emailChoice}}</td><td>{{#managed}}managed{{/managed}}{{^managed}}personal{{/managed}}</td></tr>{{/personas}}</tbody></table>
        </section>
        <section aria-labelledby="apps"><h2 id="apps">Apps</h2>
        {{#apps}}<h3><code>{{primaryAppID}}</code> <span class="note">team {{teamID}} · notifications to {{notificationURL}}</span></h3>
        <ul>{{#clients}}<li><code>{{id}}</code> {{detail}}</li>{{/clients}}</ul>{{/apps}}
        </section>
        <section aria-labelledby="deliveries"><h2 id="deliveries">Notifications not yet delivered</h2>
        {{^hasDeliveries}}<p class="note">None.</p>{{/hasDeliveries}}
        {{#hasDeliveries}}<table><thead><tr><th scope="col">Type</th><th scope="col">Persona</th><th scope="col">App</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">URL</th></tr></thead>
        <tbody>{{#deliveries}}<tr><td>{{type}}</td><td><code>{{personaID}}</code></td><td><code>{{app}}</code></td><td>{{status}}</td><td>{{attempts}}</td><td>{{nextAttempt}}</td><td>{{url}}</td></tr>{{/deliveries}}</tbody></table>{{/hasDeliveries}}
        </section>
        <section aria-labelledby="requests"><h2 id="requests">Latest requests</h2>
        {{^hasRequests}}<p class="note">None yet.</p>{{/hasRequests}}
        <ol class="journal">{{#requests}}<li{{#failed}} class="error"{{/failed}}><time>{{time}}</time> <code>{{method}} {{endpoint}}</code> {{clientID}} → <strong>{{status}}</strong> {{error}}<br><span class="note">{{reason}}</span></li>{{/requests}}</ol>
        </section>
        </main>
        {{/body}}
        {{/page}}
        """
}
