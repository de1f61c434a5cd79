import Foundation
@testable import MockAppleID
import Testing

/// The domains relay addresses are given out at: new ones at `relay.addressDomain` (`private.icloud.com`
/// unless the scenario names another), each address keeping the domain it was first given out at, also
/// when read back from a snapshot written before addresses recorded their domain.
@Suite("relay domains")
struct RelayDomainTests {
    /// john's address in the id_token of a sign-in (hiding his email) to `client`.
    static func signedInAddress(_ provider: AppleIDProvider, client: String = Fixtures.webClient) throws -> String {
        let parameters = Fixtures.authorizeParameters(["client_id": client])
        let delivery = try provider.signIn("john", parameters: parameters, emailChoice: .hide)
        let idToken = try #require(delivery["id_token"])
        return try #require(try claims(of: idToken)["email"]?.stringValue)
    }

    /// A snapshot of `provider` as a version that recorded no domain per address wrote it.
    static func snapshotWithoutDomains(_ provider: AppleIDProvider) throws -> WorldSnapshot {
        var snapshot = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(provider.snapshot())) as? [String: Any])
        var state = try #require(snapshot["state"] as? [String: Any])
        #expect(state.removeValue(forKey: "relayAddressDomains") != nil)
        snapshot["state"] = state
        return try JSONDecoder().decode(WorldSnapshot.self, from: JSONSerialization.data(withJSONObject: snapshot))
    }

    @Test("new addresses are at private.icloud.com unless the scenario names the domain; mail is taken at either domain, not at icloud.com")
    func newAddresses() throws {
        for (named, expected) in [(nil, "private.icloud.com"), (RelayOptions.AddressDomain.privateRelay, "privaterelay.appleid.com"),
                                  (.privateICloud, "private.icloud.com")] {
            let provider = try Fixtures.provider { $0.settings.relay.addressDomain = named }
            let address = try Self.signedInAddress(provider)
            #expect(address.hasSuffix("@\(expected)"))
            #expect(try provider.relayAddress(personaID: "john", app: Fixtures.webClient) == address)
            let local = address.prefix { $0 != "@" }
            for domain in RelayOptions.AddressDomain.allCases {
                let message = try #require(provider.deliverRelayMail(RelayTests.mail("\(local)@\(domain.rawValue)")).delivered.first)
                #expect(message.relayAddress == address)
            }
            #expect(provider.checkRelayRecipient("\(local)@icloud.com", sender: RelayTests.sender)
                == .failure(.unknownAddress("\(local)@icloud.com")))
        }
    }

    @Test("an address keeps its domain when new ones move: across sign-ins, a revoked and given-again consent, and a snapshot")
    func addressesKeepTheirDomain() throws {
        let provider = try Fixtures.provider { $0.settings.relay.addressDomain = .privateRelay }
        let old = try Self.signedInAddress(provider)
        #expect(old.hasSuffix("@privaterelay.appleid.com"))
        provider.setRelayDomain(.privateICloud)
        #expect(provider.world.events.events().map(\.event).contains(.relayDomainChanged(domain: "private.icloud.com")))
        let new = try Self.signedInAddress(provider, client: "org.other.web")
        #expect(new.hasSuffix("@private.icloud.com"))
        #expect(try Self.signedInAddress(provider) == old)
        try provider.revokeConsent(personaID: "john", clientID: Fixtures.webClient)
        #expect(try Self.signedInAddress(provider) == old)
        #expect(Set(provider.relayAddresses().map(\.address)) == [old, new])

        let restored = try Fixtures.provider { $0.settings.relay.addressDomain = .privateRelay }
        restored.restore(provider.snapshot())
        #expect(Set(restored.relayAddresses().map(\.address)) == [old, new])
    }

    @Test("a snapshot from before addresses recorded their domain reads them back at the domain given out then; new ones go to the new domain")
    func unrecordedDomains() throws {
        for named in [nil, RelayOptions.AddressDomain.privateICloud] {
            let earlier = try Fixtures.provider { $0.settings.relay.addressDomain = named ?? .privateRelay }
            let address = try Self.signedInAddress(earlier)
            let upgraded = try Fixtures.provider { $0.settings.relay.addressDomain = named }
            upgraded.restore(try Self.snapshotWithoutDomains(earlier))
            #expect(upgraded.relayAddresses().map(\.address) == [address])
            #expect(try Self.signedInAddress(upgraded) == address)
            #expect(try Self.signedInAddress(upgraded, client: "org.other.web").hasSuffix("@private.icloud.com"))
        }
    }

    @Test("a moved app's users get the new team's address at the domain of the move; a re-created account gets a new address")
    func transferAndRecreation() throws {
        let provider = try Fixtures.provider { $0.settings.relay.addressDomain = .privateRelay }
        let before = try Self.signedInAddress(provider)
        provider.setRelayDomain(.privateICloud)
        try provider.transferApp("com.example.app", to: "OTHERTEAM1")
        provider.setRelayDomain(.privateRelay)
        let moved = try provider.relayAddress(personaID: "john", app: Fixtures.webClient)
        #expect(moved.hasSuffix("@private.icloud.com") && moved.prefix(10) != before.prefix(10))
        #expect(try Self.signedInAddress(provider) == moved)

        try provider.deleteAccount(personaID: "john")
        #expect(provider.world.read { $0.relayAddressDomains.count } == 0)
        try provider.createPersona(try #require(Fixtures.scenario().personas.first { $0.id == "john" }))
        provider.setRelayDomain(.privateICloud)
        let recreated = try Self.signedInAddress(provider)
        #expect(recreated != moved && recreated.hasSuffix("@private.icloud.com"))
    }
}
