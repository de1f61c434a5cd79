import Foundation
import MockAppleID

/// The relay inboxes as a page: the addresses in use, then each message, newest first.
enum RelayInboxPage {
    /// The most messages shown (the JSON API has them all).
    static let shown = 200

    static func render(messages: [RelayMessage], addresses: [RelayAddress], persona: String?) -> String {
        let list = addresses.filter { persona == nil || $0.personaID == persona }.map { address in
            "<li><code>\(HTML.escape(address.address))</code>: persona \(HTML.escape(address.personaID)), team \(HTML.escape(address.teamID))"
                + (address.forwarding ? "" : " <strong>(forwarding off)</strong>") + "</li>"
        }.joined(separator: "\n")
        let items = messages.suffix(shown).reversed().map { message in
            """
            <article>
            <h2>\(HTML.escape(message.subject ?? "(no subject)"))</h2>
            <p class="note">From \(HTML.escape(message.from ?? message.envelopeFrom)) to <code>\(HTML.escape(message.relayAddress))</code> \
            (persona \(HTML.escape(message.personaID))), \(HTML.escape(message.receivedAt.formatted(.iso8601)))\
            \(message.forwarded.map { "; forwarding: " + HTML.escape($0) } ?? "")</p>
            <pre>\(HTML.escape(String(message.body.prefix(20_000))))</pre>
            </article>
            """
        }.joined(separator: "\n")
        return HTML.page(title: "Private relay inbox", body: """
            <h1>Private relay inbox\(persona.map { ": " + HTML.escape($0) } ?? "")</h1>
            <h2>Relay addresses</h2>
            <ul>\(list.isEmpty ? "<li>none in use yet: a persona hides their email at a first sign-in</li>" : list)</ul>
            <h2>Messages (\(messages.count))</h2>
            \(items.isEmpty ? "<p>No mail yet.</p>" : items)
            """)
    }
}
