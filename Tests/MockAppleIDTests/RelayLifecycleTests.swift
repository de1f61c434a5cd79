import Foundation
@testable import MockAppleID
import Testing

/// The relay as a person's account lives it: forwarding set per relay address (per app's team), and
/// what a mail client shows of a message.
@Suite("relay lifecycle")
struct RelayLifecycleTests {
    /// john hides his email from an app of each team; returns his two relay addresses.
    static func twoTeams(_ provider: AppleIDProvider) throws -> (mock: String, other: String) {
        _ = try provider.signIn("john")
        _ = try provider.signIn("john", parameters: Fixtures.authorizeParameters(["client_id": "org.other.web"]), emailChoice: .hide)
        return (try provider.relayAddress(personaID: "john", app: Fixtures.webClient), try provider.relayAddress(personaID: "john", app: "org.other.web"))
    }

    static func queuedTypes(_ provider: AppleIDProvider) -> [String] {
        provider.notificationDeliveries().map { "\($0.notification.type.rawValue) \($0.notification.groupID)" }
    }

    @Test("forwarding off for one app's team: only that address refuses mail and only its app groups are told; the persona's switch sets them all")
    func perAppForwarding() throws {
        let provider = try Fixtures.provider()
        try provider.setNotificationURL("https://rp.example.com/n", app: "com.example.app")
        try provider.setNotificationURL("https://other.example.org/n", app: "org.other.app")
        let (mock, other) = try Self.twoTeams(provider)
        try provider.changeEmailSources(.add(["example.com"]), team: "OTHERTEAM1")

        let after = try provider.setRelayForwarding(false, personaID: "john", app: Fixtures.webClient)
        #expect(after.map { "\($0.address) \($0.forwarding)" }.sorted() == ["\(mock) false", "\(other) true"].sorted())
        #expect(provider.checkRelayRecipient(mock, sender: RelayTests.sender) == .failure(.forwardingDisabled(mock)))
        #expect(try provider.checkRelayRecipient(other, sender: RelayTests.sender).get().teamID == "OTHERTEAM1")
        #expect(Self.queuedTypes(provider) == ["email-disabled com.example.app"])
        // Setting it again changes nothing and tells nobody.
        try provider.setRelayForwarding(false, personaID: "john", app: "com.example.app")
        #expect(Self.queuedTypes(provider).count == 1)

        // The persona's own switch is every address's.
        var john = try #require(provider.persona("john"))
        john.relayForwarding = false
        try provider.updatePersona(john)
        #expect(provider.checkRelayRecipient(other, sender: RelayTests.sender) == .failure(.forwardingDisabled(other)))
        #expect(Self.queuedTypes(provider) == ["email-disabled com.example.app", "email-disabled org.other.app"])
        try provider.setRelayForwarding(true, personaID: "john")
        #expect(Self.queuedTypes(provider).suffix(2).sorted() == ["email-enabled com.example.app", "email-enabled org.other.app"])
        #expect(provider.relayAddresses().allSatisfy { $0.forwarding })
    }

    @Test("a persona without email, an unknown persona or app, an app the persona does not hide their email from, a deleted account: refused")
    func forwardingRefusals() throws {
        let provider = try Fixtures.provider()
        #expect(throws: PersonaError.notFound("ghost")) { try provider.setRelayForwarding(false, personaID: "ghost") }
        #expect(throws: PersonaError.self) { try provider.setRelayForwarding(false, personaID: "noemail") }
        #expect(throws: PersonaError.self) { try provider.setRelayForwarding(false, personaID: "john", app: "com.nowhere") }
        _ = try provider.signIn("jane")
        let shares = #expect(throws: PersonaError.self) { try provider.setRelayForwarding(false, personaID: "jane", app: Fixtures.webClient) }
        #expect(shares?.description.contains("does not hide their email from an app of team MOCKTEAM01") == true)
        try provider.deleteAccount(personaID: "john")
        #expect(throws: PersonaError.invalid("persona john's account is deleted")) { try provider.setRelayForwarding(false, personaID: "john") }
        #expect(provider.persona("john")?.relayForwarding == true && provider.persona("jane")?.relayForwarding == true)
    }

    @Test("a per-app setting ends with the last consent that uses its address, and when the app moves to another team")
    func forwardingEndsWithItsAddress() throws {
        let provider = try Fixtures.provider()
        let (mock, _) = try Self.twoTeams(provider)
        try provider.setRelayForwarding(false, personaID: "john", app: Fixtures.webClient)
        try provider.revokeConsent(personaID: "john", clientID: Fixtures.webClient)
        _ = try provider.signIn("john")
        #expect(provider.relayAddresses().first { $0.address == mock }?.forwarding == true)
        try provider.setRelayForwarding(false, personaID: "john", app: Fixtures.webClient)
        try provider.transferApp("com.example.app", to: "OTHERTEAM1")
        #expect(provider.world.read { $0.relayForwarding.count } == 0)
    }

    @Test("a message is shown as a mail client shows it: encoded words, quoted-printable, base64, multipart, charsets")
    func decoded() throws {
        let provider = try Fixtures.provider()
        let address = try RelayTests.johnsAddress(provider)
        let data = """
            From: =?UTF-8?B?Q2Fmw6k=?= <news@example.com>\r
            To: =?ISO-8859-1?Q?J=F6rg?= <\(address)>\r
            Subject: =?UTF-8?Q?Bienvenue_=C3=A0?=\r
             =?UTF-8?Q?_bord?= =?UTF-8?B?IOKckw==?=\r
            MIME-Version: 1.0\r
            Content-Type: multipart/alternative; boundary="b1"\r
            \r
            preamble\r
            --b1\r
            Content-Type: text/plain; charset=utf-8\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            Caf=C3=A9 cr=C3=A8me, a long line that is wrapped=\r
             softly.\r
            --b1\r
            Content-Type: text/html; charset=iso-8859-1\r
            Content-Transfer-Encoding: base64\r
            \r
            PHA+Q2Fm6TwvcD4=\r
            --b1--\r
            epilogue\r

            """
        let message = try #require(provider.deliverRelayMail(RelaySubmission(envelopeFrom: RelayTests.sender, recipients: [address], data: data))
            .delivered.first)
        #expect(message.from == "Café <news@example.com>")
        #expect(message.to == "Jörg <\(address)>")
        #expect(message.subject == "Bienvenue à bord ✓")
        #expect(message.text == "Café crème, a long line that is wrapped softly.")
        #expect(message.html == "<p>Café</p>")
        #expect(message.headers.first { $0.name == "Subject" }?.value.hasPrefix("=?UTF-8?Q?") == true)  // the raw message is kept
        #expect(message.body.contains("--b1"))
    }

    @Test("a body without a type is its text; bad encodings and deep nesting come out as sent, never as a crash")
    func decodingEdges() {
        #expect(MailDecoding.text(headers: [], body: "plain\n").plain == "plain\n")
        #expect(MailDecoding.headerValue("=?UTF-8?Q?broken=ZZ?= tail") == "=?UTF-8?Q?broken=ZZ?= tail")
        #expect(MailDecoding.headerValue("a =?unknown?X?x?= b") == "a =?unknown?X?x?= b")
        #expect(MailDecoding.headerValue("=?UTF-8?B?YQ==?= =?UTF-8?B?Yg==?= c") == "ab c")
        let qp = [MailHeader(name: "Content-Transfer-Encoding", value: "quoted-printable")]
        #expect(MailDecoding.text(headers: qp, body: "50% off =G\n").plain == "50% off =G\n")
        var nested = "x"
        for depth in 0..<20 {
            nested = "Content-Type: multipart/mixed; boundary=\"d\(depth)\"\n\n--d\(depth)\n\(nested)\n--d\(depth)--\n"
        }
        let (headers, body) = MailText.split(nested)
        #expect(MailDecoding.text(headers: headers, body: body).plain == nil)
    }
}
