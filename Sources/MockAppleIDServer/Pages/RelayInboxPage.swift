import Foundation
import MockAppleID

/// The relay inboxes as a page: the addresses in use, then each message, newest first.
enum RelayInboxPage {
    /// The most messages shown (the JSON API has them all).
    static let shown = 200

    static func render(messages: [RelayMessage], addresses: [RelayAddress], persona: String?) -> String {
        let shownAddresses = addresses.filter { persona == nil || $0.personaID == persona }.map {
            Address(address: $0.address, personaID: $0.personaID, teamID: $0.teamID, forwardingOff: !$0.forwarding)
        }
        let shownMessages = messages.suffix(shown).reversed().map {
            Message(subject: $0.subject ?? "(no subject)", from: $0.from ?? $0.envelopeFrom, relayAddress: $0.relayAddress,
                    personaID: $0.personaID, receivedAt: $0.receivedAt.formatted(.iso8601), forwarded: $0.forwarded,
                    body: String(($0.text ?? $0.body).prefix(20_000)))
        }
        return PageTemplates.render(Model(persona: persona, addresses: shownAddresses, messageCount: messages.count,
                                          messages: shownMessages), with: "relay-inbox")
    }

    struct Model {
        let persona: String?
        let addresses: [Address]
        let messageCount: Int
        let messages: [Message]
    }

    struct Address {
        let address: String
        let personaID: String
        let teamID: String
        let forwardingOff: Bool
    }

    struct Message {
        let subject: String
        let from: String
        let relayAddress: String
        let personaID: String
        let receivedAt: String
        let forwarded: String?
        let body: String
    }

    static let template = """
        {{<page}}
        {{$title}}Private relay inbox{{/title}}
        {{$body}}
        <h1>Private relay inbox{{#persona}}: {{.}}{{/persona}}</h1>
        <h2>Relay addresses</h2>
        <ul>
        {{#addresses}}
        <li><code>{{address}}</code>: persona {{personaID}}, team {{teamID}}{{#forwardingOff}} <strong>(forwarding off)</strong>{{/forwardingOff}}</li>
        {{/addresses}}
        {{^addresses}}
        <li>none in use yet: a persona hides their email at a first sign-in</li>
        {{/addresses}}
        </ul>
        <h2>Messages ({{messageCount}})</h2>
        {{#messages}}
        <article>
        <h2>{{subject}}</h2>
        <p class="note">From {{from}} to <code>{{relayAddress}}</code> (persona {{personaID}}), {{receivedAt}}{{#forwarded}}; forwarding: {{.}}{{/forwarded}}</p>
        <pre>{{body}}</pre>
        </article>
        {{/messages}}
        {{^messages}}
        <p>No mail yet.</p>
        {{/messages}}
        {{/body}}
        {{/page}}
        """
}
