import Foundation

/// Whose relay address a forwarding setting is for: a persona's address under one team, which every
/// app group of the team that the persona hides their email from uses.
public struct RelayAddressOwner: Hashable, Sendable, Codable {
    public let personaID: String
    public let teamID: String
}

/// Relay forwarding as the person sets it on their device (Settings › Apple ID › Sign in with Apple › the
/// app › Forward To): for one relay address, so that turning it off for one developer's apps leaves the
/// others' addresses forwarding. ``Persona/relayForwarding`` is the default of every address of the
/// persona's; changing it sets every address, as turning forwarding off everywhere would.
extension WorldState {
    /// Whether mail to the persona's relay address under `teamID` is forwarded.
    func forwardsMail(personaID: String, teamID: String) -> Bool {
        relayForwarding[RelayAddressOwner(personaID: personaID, teamID: teamID)] ?? persona(personaID)?.relayForwarding ?? false
    }

    /// Turns forwarding on or off for the persona's relay address under the team of `groupID`, or for
    /// every one of their addresses (nil). Each address in use whose setting changes is an event,
    /// which sends `email-enabled` or `email-disabled` to the app groups that use it.
    mutating func setRelayForwarding(_ on: Bool, personaID: String, groupID: String?, events: inout [DomainEvent]) throws(PersonaError) {
        guard let persona = persona(personaID) else { throw .notFound(personaID) }
        guard !deletedAccounts.contains(personaID) else { throw .invalid("persona \(personaID)'s account is deleted") }
        guard persona.email != nil, !persona.managed else {
            throw .invalid(persona.managed ? "a managed account has no relay address" : "persona \(personaID) has no email, so no relay address")
        }
        let before = forwardingInUse(personaID: personaID)
        if let groupID {
            guard let teamID = directory.groups[groupID]?.teamID else { throw .invalid("no app group has primary App ID \(groupID)") }
            guard before[teamID] != nil else {
                throw .invalid("persona \(personaID) does not hide their email from an app of team \(teamID), so has no relay address there")
            }
            relayForwarding[RelayAddressOwner(personaID: personaID, teamID: teamID)] = on == persona.relayForwarding ? nil : on
        } else {
            var changed = persona
            changed.relayForwarding = on
            if let index = personas.firstIndex(where: { $0.id == personaID }) { personas[index] = changed }
            forgetRelayForwarding(of: personaID)
        }
        announceForwardingChanges(personaID: personaID, since: before, events: &events)
    }

    /// The forwarding of each relay address of the persona in use, by team.
    func forwardingInUse(personaID: String) -> [String: Bool] {
        var forwarding: [String: Bool] = [:]
        for consent in consents.values where consent.personaID == personaID && consent.usesRelayAddress {
            guard let teamID = directory.groups[consent.groupID]?.teamID else { continue }
            forwarding[teamID] = forwardsMail(personaID: personaID, teamID: teamID)
        }
        return forwarding
    }

    /// An event for each address in use whose forwarding differs from `before` (taken with ``forwardingInUse(personaID:)``).
    mutating func announceForwardingChanges(personaID: String, since before: [String: Bool], events: inout [DomainEvent]) {
        for (teamID, on) in forwardingInUse(personaID: personaID).sorted(by: { $0.key < $1.key }) where before[teamID] != on {
            events.append(.relayForwardingChanged(personaID: personaID, teamID: teamID,
                                                  address: relayAddress(personaID: personaID, teamID: teamID), forwarding: on))
        }
    }

    /// Drops the settings of the persona's single addresses (their account ended, or every address was set at once).
    mutating func forgetRelayForwarding(of personaID: String) {
        relayForwarding.removeAll { owner, _ in owner.personaID == personaID }
    }

    /// Drops the settings of the persona's addresses that no consent uses any more (the last app of the team
    /// they hid their email from was revoked, or moved to another team): an address given out again later
    /// starts from the persona's setting, as a new one.
    mutating func forgetUnusedRelayForwarding(of personaID: String) {
        let inUse = forwardingInUse(personaID: personaID)
        relayForwarding.removeAll { owner, _ in owner.personaID == personaID && inUse[owner.teamID] == nil }
    }

    /// The app groups of `teamID` that use the persona's relay address there, by primary App ID.
    func groupsUsingRelayAddress(personaID: String, teamID: String) -> [String] {
        consents.values.filter { $0.personaID == personaID && $0.usesRelayAddress && directory.groups[$0.groupID]?.teamID == teamID }
            .map(\.groupID).sorted()
    }
}
