import Foundation

/// Whose relay address a domain was given out for: an account (``WorldState/accountKey(_:)``, so a
/// re-created account's address is a new one) under a team.
struct RelayAddressKey: Hashable, Sendable, Codable {
    let accountKey: String
    let teamID: String
}

/// The domains relay addresses get (`relay.addressDomain`).
struct RelayDomainPolicy: Sendable, Equatable {
    /// Where new addresses are given out; a timeline's `setRelayDomain` step moves it.
    var new: RelayOptions.AddressDomain
    /// The domain of an address in use that a state written by an earlier version recorded none for.
    let unrecorded: RelayOptions.AddressDomain

    init(_ options: RelayOptions) {
        new = options.newAddressDomain
        unrecorded = options.unrecordedAddressDomain
    }
}

/// An address keeps the domain it was given out at. Apple moved new relay addresses from
/// `privaterelay.appleid.com` to `private.icloud.com` in 2026 and kept the ones already given out, so a
/// person may hold one of each, with two teams' apps. The local part is derived (``AppleIdentifiers``);
/// the domain is recorded when the address is first given out: at a sign-in that hides the email, and
/// when an app group moves to a team (its users get that team's address).
extension WorldState {
    /// The domain of the address of `key`: the one recorded, or where new addresses are given out.
    func relayDomain(_ key: RelayAddressKey) -> RelayOptions.AddressDomain {
        relayAddressDomains[key] ?? relayDomains.new
    }

    /// Records the domain of the persona's address under `teamID` the first time it is given out.
    mutating func giveOutRelayAddress(personaID: String, teamID: String) {
        let key = RelayAddressKey(accountKey: accountKey(personaID), teamID: teamID)
        if relayAddressDomains[key] == nil { relayAddressDomains[key] = relayDomains.new }
    }

    /// Gives each address in use that has no recorded domain the one an earlier version gave it out at
    /// (it recorded none): called once a stored state or a snapshot becomes the world's.
    mutating func recordUnrecordedRelayDomains() {
        for consent in consents.values where consent.usesRelayAddress && !deletedAccounts.contains(consent.personaID) {
            guard let teamID = directory.groups[consent.groupID]?.teamID else { continue }
            let key = RelayAddressKey(accountKey: accountKey(consent.personaID), teamID: teamID)
            if relayAddressDomains[key] == nil { relayAddressDomains[key] = relayDomains.unrecorded }
        }
    }

    /// Forgets the domains of the persona's addresses as their account ends (a re-created account has new addresses).
    mutating func forgetRelayDomains(of personaID: String) {
        let ended = accountKey(personaID)
        relayAddressDomains.removeAll { key, _ in key.accountKey == ended }
    }
}
