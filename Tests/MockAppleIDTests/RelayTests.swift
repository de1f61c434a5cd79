import Foundation
@testable import MockAppleID
import Testing

/// The private email relay in the core: which addresses exist, who may send to them, the daily
/// limit on the mock clock, and what an inbox keeps (the SMTP listener is exercised over a socket).
@Suite("private email relay")
struct RelayTests {
    static let sender = "news@example.com"

    /// john hides his email; after this sign-in his relay address for the default team is in use.
    static func johnsAddress(_ provider: AppleIDProvider) throws -> String {
        _ = try provider.signIn("john")
        return try provider.relayAddress(personaID: "john", app: Fixtures.webClient)
    }

    static func mail(_ to: String, from: String = sender, headerFrom: String? = nil) -> RelaySubmission {
        RelaySubmission(envelopeFrom: from, recipients: [to],
                        data: "From: Shop <\(headerFrom ?? from)>\r\nSubject: Hi\r\n\tthere\r\n\r\nBody line\r\n")
    }

    @Test("a relay address is 10 lowercase letters or digits, stable per team and different across teams")
    func addressShape() throws {
        let provider = try Fixtures.provider()
        let first = try provider.relayAddress(personaID: "john", app: Fixtures.webClient)
        #expect(first.wholeMatch(of: /[a-z0-9]{10}@private\.icloud\.com/) != nil)
        #expect(try provider.relayAddress(personaID: "john", app: "com.example.app") == first)
        #expect(try provider.relayAddress(personaID: "john", app: "org.other.web") != first)
        #expect(try provider.relayAddress(personaID: "jane", app: Fixtures.webClient) != first)
    }

    @Test("mail from a registered source is delivered into the persona's inbox, headers unfolded")
    func delivered() throws {
        let provider = try Fixtures.provider()
        let address = try Self.johnsAddress(provider)
        #expect(try provider.checkRelayRecipient(address.uppercased(), sender: Self.sender).get().personaID == "john")
        let outcome = provider.deliverRelayMail(Self.mail(address))
        let message = try #require(outcome.delivered.first)
        #expect(outcome.refused.isEmpty && message.relayAddress == address && message.teamID == "MOCKTEAM01")
        #expect(message.subject == "Hi there" && message.from == "Shop <news@example.com>" && message.body == "Body line\n")
        #expect(message.forwardTo == "john.hidden@example.com")
        #expect(provider.relayMessages(personaID: "john") == [message] && provider.relayMessages(personaID: "jane").isEmpty)
    }

    @Test("unknown addresses, disabled forwarding and unregistered senders get Apple's 550 5.1.1")
    func refusals() throws {
        let provider = try Fixtures.provider()
        #expect(provider.checkRelayRecipient("zzzzzzzzzz@privaterelay.appleid.com", sender: Self.sender)
            == .failure(.unknownAddress("zzzzzzzzzz@privaterelay.appleid.com")))
        let address = try Self.johnsAddress(provider)
        let unregistered = provider.checkRelayRecipient(address, sender: "news@sub.example.com")
        #expect(unregistered == .failure(.unauthorizedSender(address: address, sender: "news@sub.example.com", wording: .unauthorizedSender)))
        #expect((try? unregistered.get()) == nil && RelayRejection.unknownAddress(address).reply == "550 5.1.1 <\(address)>: user not found")
        let headerOnly = provider.deliverRelayMail(Self.mail(address, headerFrom: "ceo@elsewhere.example.net"))
        #expect(headerOnly.delivered.isEmpty && headerOnly.refused.first?.reply.hasPrefix("550 5.1.1") == true)
        var john = try #require(provider.persona("john"))
        john.relayForwarding = false
        try provider.updatePersona(john)
        #expect(provider.checkRelayRecipient(address, sender: Self.sender) == .failure(.forwardingDisabled(address)))
        #expect(provider.deliverRelayMail(Self.mail(address)).delivered.isEmpty)
        #expect(provider.world.events.events().contains { if case .relayMailRefused = $0.event { true } else { false } })
    }

    @Test("header unfolding is linear and bounded; a missing or repeated From: header is refused")
    func headers() throws {
        let folded = "Subject: a\r\n" + String(repeating: " b\r\n", count: 100_000) + "\r\nbody"
        let (headers, body) = MailText.split(folded)
        #expect(headers.count == 1 && headers[0].value.hasPrefix("a b b") && headers[0].value.utf8.count < MailText.headerBlockLimit)
        #expect(body.hasSuffix("body"))
        let many = (0..<300).map { "X-\($0): v\r\n \($0)" }.joined(separator: "\r\n") + "\r\n\r\nbody"
        let parsed = MailText.split(many)
        #expect(parsed.headers.count == MailText.headerLimit && parsed.headers.last?.value == "v 199" && parsed.body == "body")
        let provider = try Fixtures.provider()
        let address = try Self.johnsAddress(provider)
        for data in ["Subject: none\r\n\r\nx", "From: news@example.com\r\nFrom: news@example.com\r\n\r\nx"] {
            let outcome = provider.deliverRelayMail(RelaySubmission(envelopeFrom: Self.sender, recipients: [address], data: data))
            #expect(outcome.delivered.isEmpty && outcome.refused.first?.reply.hasPrefix("550 5.1.1") == true)
        }
    }

    @Test("the sender wording is a scenario knob")
    func wording() throws {
        let provider = try Fixtures.provider { $0.settings.relay.senderRejection = .badMailboxName }
        let address = try Self.johnsAddress(provider)
        guard case let .failure(rejection) = provider.checkRelayRecipient(address, sender: "a@b.example") else {
            Issue.record("an unregistered sender was accepted")
            return
        }
        #expect(rejection.reply == "550 5.1.1 <\(address)>: bad mailbox name")
    }

    @Test("an address ends with the consents that use it, and with the account")
    func addressLifetime() throws {
        let provider = try Fixtures.provider()
        let address = try Self.johnsAddress(provider)
        #expect(provider.relayAddresses().map(\.address) == [address])
        try provider.revokeConsent(personaID: "john", clientID: Fixtures.webClient)
        #expect(provider.checkRelayRecipient(address, sender: Self.sender) == .failure(.unknownAddress(address)))
        _ = try provider.signIn("john")
        try provider.deleteAccount(personaID: "john")
        #expect(provider.checkRelayRecipient(address, sender: Self.sender) == .failure(.unknownAddress(address)))
        #expect(provider.relayAddresses().isEmpty)
    }

    @Test("the daily limit counts 24 hours of mock-clock time per address")
    func dailyLimit() throws {
        let provider = try Fixtures.provider { $0.settings.relay.dailyLimit = 2 }
        let address = try Self.johnsAddress(provider)
        #expect(provider.deliverRelayMail(Self.mail(address)).delivered.count == 1)
        try provider.advanceClock(by: 3600)
        #expect(provider.deliverRelayMail(Self.mail(address)).delivered.count == 1)
        #expect(provider.checkRelayRecipient(address, sender: Self.sender) == .failure(.dailyLimit(address: address, limit: 2)))
        try provider.advanceClock(by: 86_400 - 3600)
        #expect(provider.deliverRelayMail(Self.mail(address)).delivered.count == 1)
        #expect(provider.checkRelayRecipient(address, sender: Self.sender) == .failure(.dailyLimit(address: address, limit: 2)))
    }

    @Test("inboxes keep the newest messages up to the capacity, and clear")
    func capacity() throws {
        let provider = try Fixtures.provider {
            $0.settings.relay.inboxCapacity = 3
            $0.settings.relay.dailyLimit = 0
        }
        let address = try Self.johnsAddress(provider)
        let ids = (0..<5).compactMap { _ in provider.deliverRelayMail(Self.mail(address)).delivered.first?.id }
        #expect(ids.count == 5 && provider.relayMessages().map(\.id) == Array(ids.suffix(3)))
        provider.clearRelayInboxes()
        #expect(provider.relayMessages().isEmpty)
    }

    @Test("email sources: domains match exactly, addresses whole, case-insensitive; bad ones are refused")
    func sources() throws {
        let team = Team(id: "T", developerKeys: [], emailSources: ["example.com", "alerts@shop.example"])
        #expect(team.acceptsMail(from: "News@Example.COM") && team.acceptsMail(from: "alerts@shop.example"))
        #expect(!team.acceptsMail(from: "news@mail.example.com") && !team.acceptsMail(from: "other@shop.example") && !team.acceptsMail(from: ""))
        #expect(try Team.checkEmailSources(["A.Example", "a.example", "x@b.example"]) == ["a.example", "x@b.example"])
        for bad in ["localhost", "a b.example", "@x.example", "a@@b.example", ".example", "x@", String(repeating: "a", count: 260) + ".com"] {
            #expect(throws: EmailSourceError.self) { try Team.checkEmailSources([bad]) }
        }
        #expect(throws: EmailSourceError.self) { try Team.checkEmailSources((0...100).map { "d\($0).example" }) }
        let provider = try Fixtures.provider()
        #expect(throws: EmailSourceError.unknownTeam("NOPE")) { try provider.setEmailSources([], team: "NOPE") }
        try provider.setEmailSources(["mail.example.com"], team: "MOCKTEAM01")
        #expect(provider.directory.teams["MOCKTEAM01"]?.emailSources == ["mail.example.com"])
    }

    @Test("a timeline's sendMail step fails when the relay answers otherwise than expected")
    func timelineExpectation() throws {
        let yaml = """
            timeline:
              - do: signIn
                persona: john
              - do: sendMail
                from: news@example.com
                persona: john
                expect: {smtpReply: "550 5.1.1"}
              - do: sendMail
                from: news@elsewhere.example.net
                persona: john
            """
        let provider = try Fixtures.provider()
        let timeline = try Timeline.parse(yaml: yaml, file: "inline.yaml", directory: provider.directory, resources: EmbeddedResources(files: [:], origin: "test"))
        provider.timeline.load(timeline)
        let outcomes = provider.timeline.runAll(provider)
        #expect(outcomes.map(\.passed) == [true, false, false])
        #expect(outcomes[1].failures == ["expected the relay to answer 550 5.1.1, it answered 250 2.0.0 OK: queued as \(provider.relayMessages()[0].id)"])
    }
}
