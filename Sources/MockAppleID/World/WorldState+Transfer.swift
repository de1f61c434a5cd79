import Foundation

extension WorldState {
    /// Moves an app group to team `teamID`: its clients belong to that team from now on, so its users'
    /// `sub` and relay addresses are the new team's. Consents and grants stay.
    mutating func transferApp(groupID: String, to teamID: String, at now: Date, events: inout [DomainEvent]) throws(TransferError) -> AppTransfer {
        guard let group = directory.groups[groupID] else { throw .unknownApp(groupID) }
        guard directory.teams[teamID] != nil else { throw .unknownTeam(teamID) }
        guard group.teamID != teamID else { throw .sameTeam(teamID) }
        guard transfers.count < UserMigration.transferCapacity else { throw .tooMany }
        let moved = consents.keys.filter { $0.groupID == groupID }.map(\.personaID).sorted()
        let transfer = AppTransfer(groupID: groupID, fromTeam: group.teamID, toTeam: teamID, at: now, personas: moved)
        directory.move(group: groupID, to: teamID)
        for personaID in moved {
            forgetUnusedRelayForwarding(of: personaID)
            if consents[ConsentKey(personaID: personaID, groupID: groupID)]?.usesRelayAddress == true {
                giveOutRelayAddress(personaID: personaID, teamID: teamID)
            }
        }
        transfers.append(transfer)
        events.append(.appTransferred(groupID: groupID, fromTeam: transfer.fromTeam, toTeam: teamID, users: moved.count))
        return transfer
    }

    /// The `transfer_sub` a persona's identity tokens for `groupID` carry at `now`: while the window
    /// of the group's latest transfer that moved the persona is open.
    func transferSubject(personaID: String, groupID: String, at now: Date) -> String? {
        guard let transfer = transfers.last(where: { $0.groupID == groupID && $0.personas.contains(personaID) }),
              transfer.isOpen(at: now) else { return nil }
        return AppleIdentifiers.transferSubject(teamID: transfer.toTeam, personaID: accountKey(personaID))
    }

    /// Keeps a team access token (dropping expired ones once many are held).
    mutating func storeTeamToken(_ token: String, _ grant: TeamAccessToken, now: Date) {
        if teamTokens.count >= UserMigration.tokenPurgeThreshold { teamTokens.removeAll { $1.expiresAt <= now } }
        teamTokens[token] = grant
    }

    /// The team a valid team access token was issued to.
    func teamToken(_ token: String, at now: Date) -> TeamAccessToken? {
        guard let grant = teamTokens[exactly: token], grant.expiresAt > now else { return nil }
        return grant
    }

    /// Sending team: the `transfer_sub` of team `teamID`'s user `sub` for the recipient team `target`.
    func outgoingTransferSubject(sub: String, teamID: String, target: String, at now: Date,
                                 afterTransfer: ErrorAnswers.MigrationAfterTransfer) throws(AppleError) -> String {
        guard !target.sameBytes(as: teamID) else { throw AppleError(.invalidRequest, reason: "target \(target) is the sending team itself") }
        guard directory.teams[exactly: target] != nil else { throw AppleError(.invalidRequest, reason: "target \(target) is not a registered team") }
        guard let persona = personas.first(where: { !deletedAccounts.contains($0.id) && subject(personaID: $0.id, teamID: teamID) == sub }) else {
            throw AppleError(.invalidRequest, reason: "sub \(sub) is not a user of team \(teamID)")
        }
        let consented = consents.keys.filter { $0.personaID == persona.id }
        let current = consented.contains { directory.groups[$0.groupID]?.teamID == teamID }
        let movedAway = consented.first { key in
            transfers.contains { $0.groupID == key.groupID && $0.fromTeam == teamID && $0.personas.contains(persona.id) && $0.isOpen(at: now) }
        }
        guard current || movedAway != nil else {
            throw AppleError(.invalidRequest, reason: "persona \(persona.id) has no consent with an app of team \(teamID) (revoked, or its transfer window closed)")
        }
        if !current, let movedAway, afterTransfer == .invalidClient {
            throw AppleError(.invalidClient, reason: "persona \(persona.id) is team \(teamID)'s user only through app group \(movedAway.groupID), which it transferred away (errors.userMigrationInfoAfterTransfer: invalidClient; answer keeps answering for the transfer's 60 days)")
        }
        return AppleIdentifiers.transferSubject(teamID: target, personaID: accountKey(persona.id))
    }

    /// Recipient team: the user behind a `transfer_sub`, as team `teamID` knows them now.
    func incomingUser(transferSub: String, teamID: String, at now: Date) throws(AppleError) -> JSONValue {
        for transfer in transfers.reversed() where transfer.toTeam == teamID {
            for personaID in transfer.personas
            where AppleIdentifiers.transferSubject(teamID: teamID, personaID: accountKey(personaID)) == transferSub {
                guard transfer.isOpen(at: now) else {
                    throw AppleError(.invalidRequest, reason: "the 60-day migration window of the transfer of \(transfer.groupID) has closed")
                }
                guard !deletedAccounts.contains(personaID), let consent = consents[ConsentKey(personaID: personaID, groupID: transfer.groupID)] else {
                    throw AppleError(.invalidRequest, reason: "persona \(personaID) revoked access to \(transfer.groupID) or deleted the account")
                }
                var members: [(String, JSONValue)] = [("sub", .string(subject(personaID: personaID, teamID: teamID)))]
                if consent.usesRelayAddress, persona(personaID)?.email != nil {
                    members += [("email", .string(relayAddress(personaID: personaID, teamID: teamID))), ("is_private_email", .bool(true))]
                }
                return .object(members)
            }
        }
        throw AppleError(.invalidRequest, reason: "transfer_sub \(transferSub) is not one of team \(teamID)'s transferred users")
    }
}
