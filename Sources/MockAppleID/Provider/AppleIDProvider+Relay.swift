import Foundation

/// What the relay did with a submitted message.
public struct RelayOutcome: Sendable, Equatable {
    /// One message per recipient it took.
    public let delivered: [RelayMessage]
    /// The recipients it refused, with Apple's replies.
    public let refused: [RelayRejection]

    /// The SMTP reply to the message: `250` with its id if any recipient took it, else the first refusal.
    public var reply: String {
        if let first = delivered.first { return "250 2.0.0 OK: queued as \(first.id)" }
        return refused.first?.reply ?? "554 5.5.1 No valid recipients"
    }
}

/// The private email relay: which addresses take mail from whom, delivering into persona inboxes,
/// the teams' registered email sources. The SMTP listener, timelines and Swift suites all come here.
extension AppleIDProvider {
    /// Whether the relay takes mail from `sender` for `address` now: the check at `RCPT TO`.
    /// A refusal is logged (it is a `550` the sender sees).
    public func checkRelayRecipient(_ address: String, sender: String) -> Result<RelayRecipient, RelayRejection> {
        let now = clock.now
        return world.transition(at: now) { state, events in
            let verdict = state.checkRelay(sender: sender, address: address, now: now, options: settings.relay)
            if case let .failure(rejection) = verdict {
                events.append(.relayMailRefused(address: address.lowercased(), sender: sender, reason: rejection.reason))
            }
            return verdict
        }
    }

    /// Delivers a message to each recipient the relay takes it for, into the persona's inbox.
    @discardableResult
    public func deliverRelayMail(_ submission: RelaySubmission) -> RelayOutcome {
        deliverRelayMail(PreparedRelayMail(submission))
    }

    /// Delivers a message read and decoded beforehand (``PreparedRelayMail``).
    @discardableResult
    public func deliverRelayMail(_ prepared: PreparedRelayMail) -> RelayOutcome {
        let now = clock.now
        let ids = prepared.submission.recipients.map { _ in AppleIdentifiers.jwtID() }
        let (delivered, refused) = world.transition(at: now) { state, events in
            state.deliver(prepared.submission, mail: prepared.mail, ids: ids, now: now, options: settings.relay, events: &events)
        }
        return RelayOutcome(delivered: delivered, refused: refused)
    }

    /// The messages kept, oldest first; only a persona's, or only one relay address's, when given.
    public func relayMessages(personaID: String? = nil, address: String? = nil) -> [RelayMessage] {
        let address = address?.lowercased()
        return world.read { $0.relayMessages }.filter {
            (personaID == nil || $0.personaID == personaID) && (address == nil || $0.relayAddress == address)
        }
    }

    /// The persona's relay address for the team of `app` (a client id or primary App ID), whether or
    /// not it is in use yet.
    public func relayAddress(personaID: String, app: String) throws(NotificationError) -> String {
        try world.read { state in
            Result { () throws(NotificationError) in
                let groupID = try state.directory.groupID(of: app)
                guard state.persona(personaID) != nil else { throw .unknownPersona(personaID) }
                return state.relayAddress(personaID: personaID, teamID: state.directory.groups[groupID]?.teamID ?? "")
            }
        }.get()
    }

    /// The domain new relay addresses are given out at now.
    public var newRelayAddressDomain: RelayOptions.AddressDomain { world.read { $0.relayDomains.new } }

    /// Gives new relay addresses out at `domain` from now on, as Apple moved them in 2026; addresses given
    /// out keep theirs. This server's setting, not kept in a store: a reset or a restart goes back to the
    /// scenario's `relay.addressDomain`.
    public func setRelayDomain(_ domain: RelayOptions.AddressDomain) {
        world.transition(at: clock.now) { state, events in
            state.relayDomains.new = domain
            events.append(.relayDomainChanged(domain: domain.rawValue))
        }
    }

    /// Replaces the team's registered email sources (domains and addresses).
    public func setEmailSources(_ sources: [String], team teamID: String) throws(EmailSourceError) {
        try changeEmailSources(.replace(sources), team: teamID)
    }

    /// Replaces, adds to or removes from the team's registered email sources; returns them as they are now.
    @discardableResult
    public func changeEmailSources(_ change: EmailSourceChange, team teamID: String) throws(EmailSourceError) -> [String] {
        try world.transition(at: clock.now) { (state, events) throws(EmailSourceError) in
            try state.changeEmailSources(change, teamID: teamID, events: &events)
        }
    }

    /// Records how forwarding message `id` to the upstream server went.
    public func recordRelayForwarding(_ id: String, outcome: String) {
        world.transition(at: clock.now) { state, events in state.recordForwarding(id, outcome: outcome, events: &events) }
    }

    /// Empties every relay inbox; returns how many messages it held.
    @discardableResult
    public func clearRelayInboxes() -> Int {
        world.transition(at: clock.now) { state, events in state.clearRelayInboxes(events: &events) }
    }
}

extension AppleIDProvider {
    /// Every relay address in use, by address.
    public func relayAddresses() -> [RelayAddress] { world.read { $0.relayAddressesInUse } }

    /// Turns relay forwarding on or off, as the person does in Settings: for their relay address under the
    /// team of `app` (a client id or primary App ID), or for every address of theirs (nil, as changing the
    /// persona's `relayForwarding` does). The app groups using an address whose setting changed get
    /// `email-enabled` or `email-disabled`. Returns the persona's relay addresses in use.
    @discardableResult
    public func setRelayForwarding(_ on: Bool, personaID: String, app: String? = nil) throws(PersonaError) -> [RelayAddress] {
        return try world.transition(at: clock.now) { (state, events) throws(PersonaError) in
            let groupID: String?
            do throws(NotificationError) { groupID = try app.map { app throws(NotificationError) in try state.directory.groupID(of: app) } } catch {
                throw .invalid(error.description)
            }
            try state.setRelayForwarding(on, personaID: personaID, groupID: groupID, events: &events)
            return state.relayAddressesInUse.filter { $0.personaID == personaID }
        }
    }
}
