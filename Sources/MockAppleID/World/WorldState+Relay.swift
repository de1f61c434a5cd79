import Foundation

/// A relay address resolved to the persona and team behind it.
public struct RelayRecipient: Sendable, Equatable {
    public let address: String
    public let personaID: String
    public let teamID: String
}

/// Why an email-source registration was refused.
public struct EmailSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case unknownTeam(String)
        case invalid(String)
        /// A source to remove that the team has not registered.
        case notRegistered(String)
    }

    /// Which of them.
    let base: Base

    public static func unknownTeam(_ id: String) -> Self { Self(base: .unknownTeam(id)) }
    public static func invalid(_ message: String) -> Self { Self(base: .invalid(message)) }
    /// A source to remove that the team has not registered.
    public static func notRegistered(_ source: String) -> Self { Self(base: .notRegistered(source)) }

    public var description: String {
        switch base {
        case let .unknownTeam(id): return "no team has Team ID \(id)"
        case let .invalid(message): return message
        case let .notRegistered(source): return "\"\(source.prefix(80))\" is not an email source of the team"
        }
    }
}

/// A change to a team's registered email sources.
public enum EmailSourceChange: Sendable, Equatable {
    /// The sources are these from now on.
    case replace([String])
    /// These are registered too (those already registered stay as they are).
    case add([String])
    /// These are no longer registered (each must be).
    case remove([String])
}

extension WorldState {
    /// The persona and team behind a relay address, at either relay domain: an address exists while the
    /// persona has a consent that hides their email with an app group of that team. The recipient's
    /// address is the one the world gives out (at the domain it was given out at).
    func relayRecipient(_ address: String) -> RelayRecipient? {
        let wanted = address.lowercased()
        guard let at = wanted.lastIndex(of: "@"),
              RelayOptions.AddressDomain(rawValue: String(wanted[wanted.index(after: at)...])) != nil else { return nil }
        let local = wanted[..<at]
        for consent in relayConsents {
            guard let teamID = directory.groups[consent.groupID]?.teamID else { continue }
            if AppleIdentifiers.relayLocalPart(teamID: teamID, personaID: accountKey(consent.personaID)) == local {
                return RelayRecipient(address: relayAddress(personaID: consent.personaID, teamID: teamID), personaID: consent.personaID, teamID: teamID)
            }
        }
        return nil
    }

    /// The consents that keep a relay address in use: they hide the email, and the account exists.
    private var relayConsents: [Consent] { consents.values.filter { $0.usesRelayAddress && !deletedAccounts.contains($0.personaID) } }

    /// The persona's relay address under `teamID`, at the domain it was given out at (a new one's: where
    /// new addresses are given out).
    public func relayAddress(personaID: String, teamID: String) -> String {
        account(personaID: personaID, teamID: teamID).relayAddress
    }

    /// Whether the relay takes mail from `sender` for `address` now (the check made at `RCPT TO`).
    mutating func checkRelay(sender: String, address: String, now: Date, options: RelayOptions) -> Result<RelayRecipient, RelayRejection> {
        guard let recipient = relayRecipient(address) else { return .failure(.unknownAddress(address.lowercased())) }
        guard forwardsMail(personaID: recipient.personaID, teamID: recipient.teamID) else { return .failure(.forwardingDisabled(recipient.address)) }
        guard directory.teams[recipient.teamID]?.acceptsMail(from: sender) == true else {
            return .failure(.unauthorizedSender(address: recipient.address, sender: sender, wording: options.senderRejection))
        }
        if options.dailyLimit > 0, relay.deliveries(to: recipient.address, since: now) >= options.dailyLimit {
            return .failure(.dailyLimit(address: recipient.address, limit: options.dailyLimit))
        }
        return .success(recipient)
    }

    /// Delivers a message to each recipient the relay takes it for (checked again, the world may have
    /// changed since `RCPT TO`); the `From:` header must be a registered source too. Returns the
    /// delivered messages and the refused recipients.
    mutating func deliver(_ submission: RelaySubmission, mail: ReceivedMail, ids: [String], now: Date,
                          options: RelayOptions, events: inout [DomainEvent]) -> (delivered: [RelayMessage], refused: [RelayRejection]) {
        let fromHeader = mail.fromHeader
        var delivered: [RelayMessage] = []
        var refused: [RelayRejection] = []
        for (address, id) in zip(submission.recipients, ids) {
            var verdict = checkRelay(sender: submission.envelopeFrom, address: address, now: now, options: options)
            let headerSender = fromHeader.map(MailText.address(in:)) ?? ""
            if case let .success(recipient) = verdict, !(directory.teams[recipient.teamID]?.acceptsMail(from: headerSender) ?? false) {
                verdict = .failure(.unauthorizedSender(address: recipient.address, sender: fromHeader == nil ? "(no single From: header)" : headerSender,
                                                       wording: options.senderRejection))
            }
            switch verdict {
            case let .failure(rejection):
                refused.append(rejection)
                events.append(.relayMailRefused(address: address.lowercased(), sender: submission.envelopeFrom, reason: rejection.reason))
            case let .success(recipient):
                let message = RelayMessage(
                    id: id, receivedAt: now, envelopeFrom: submission.envelopeFrom, relayAddress: recipient.address,
                    personaID: recipient.personaID, teamID: recipient.teamID, forwardTo: persona(recipient.personaID)?.email,
                    headers: mail.headers, subject: mail.subject, from: mail.from, to: mail.to,
                    text: mail.text, html: mail.html, body: mail.body, size: submission.data.utf8.count)
                relay.add(message, capacity: options.inboxCapacity, countingDaily: options.dailyLimit > 0)
                delivered.append(message)
                events.append(.relayMailDelivered(id: id, personaID: recipient.personaID, address: recipient.address, sender: submission.envelopeFrom))
            }
        }
        return (delivered, refused)
    }

    /// Changes a team's registered email sources (addresses and domains); returns them as they are now.
    mutating func changeEmailSources(_ change: EmailSourceChange, teamID: String, events: inout [DomainEvent]) throws(EmailSourceError) -> [String] {
        guard let current = directory.teams[teamID]?.emailSources else { throw .unknownTeam(teamID) }
        let sources: [String]
        switch change {
        case let .replace(given): sources = given
        case let .add(given): sources = current + given
        case let .remove(given):
            let removed = try Team.checkEmailSources(given)
            if let missing = removed.first(where: { !current.contains($0) }) { throw .notRegistered(missing) }
            sources = current.filter { !removed.contains($0) }
        }
        let cleaned = try Team.checkEmailSources(sources)
        guard cleaned != current else { return current }
        directory.setEmailSources(cleaned, team: teamID)
        events.append(.emailSourcesChanged(teamID: teamID, sources: cleaned))
        return cleaned
    }

    /// Records how forwarding a delivered message upstream went.
    mutating func recordForwarding(_ id: String, outcome: String, events: inout [DomainEvent]) {
        guard relay.messages.firstIndex(where: { $0.id == id }) != nil, relay.markForwarded(id, outcome: outcome) else { return }
        events.append(.relayMailForwarded(id: id, outcome: outcome))
    }

    /// Empties every relay inbox.
    mutating func clearRelayInboxes(events: inout [DomainEvent]) -> Int {
        let count = relay.clear()
        events.append(.relayInboxesCleared(count: count))
        return count
    }
}

extension WorldState {
    /// Every relay address in use (a persona hides their email from an app group of the team), by address.
    public var relayAddressesInUse: [RelayAddress] {
        var seen = Set<String>()
        return relayConsents.compactMap { consent -> RelayAddress? in
                guard let teamID = directory.groups[consent.groupID]?.teamID, persona(consent.personaID) != nil else { return nil }
                let address = relayAddress(personaID: consent.personaID, teamID: teamID)
                guard seen.insert(address).inserted else { return nil }
                return RelayAddress(address: address, personaID: consent.personaID, teamID: teamID,
                                    forwarding: forwardsMail(personaID: consent.personaID, teamID: teamID),
                                    appGroups: groupsUsingRelayAddress(personaID: consent.personaID, teamID: teamID))
            }
            .sorted { $0.address < $1.address }
    }
}

/// A relay address in use, for the admin API and the inbox page.
public struct RelayAddress: Sendable, Equatable, Codable {
    public let address: String
    public let personaID: String
    public let teamID: String
    /// Whether mail to it is delivered (the person's forwarding setting for it).
    public let forwarding: Bool
    /// The app groups (primary App IDs) that use it: those of the team the persona hides their email from.
    public let appGroups: [String]
}
