import Foundation

/// Everything about a provider that changes: registrations, personas, consents, codes and grants,
/// the signing keys, auto-approve and queued faults. One value behind one lock (``World``); every
/// transition is a mutating method that returns a typed result and appends typed events, so parallel
/// requests never see half a change. `Codable`: a snapshot of it restores the world exactly.
///
/// Each stored property is a section, named in ``CodingKeys``; ``section(_:)``, at the end of this
/// file, says how a snapshot and a store keep each one. Whole sections are ``Tracked`` and maps are
/// ``TrackedMap``s, so that a store writes only the rows a transition changed.
public struct WorldState: Sendable, Codable {
    @Tracked public internal(set) var directory: Directory
    @Tracked public internal(set) var personas: [Persona]
    /// Personas whose Apple Account was deleted: they cannot sign in until re-created.
    @Tracked public internal(set) var deletedAccounts: Set<String> = []
    /// How many times each persona's account was re-created after deletion; a re-created account has a new `sub`.
    @Tracked public internal(set) var accountGenerations: [String: Int] = [:]
    var consents = TrackedMap<ConsentKey, Consent>()
    var codes = TrackedMap<String, IssuedCode>()
    var refreshGrants = TrackedMap<String, RefreshGrant>()
    /// Each persona and client's refresh tokens, oldest first: an index of `refreshGrants`, which a
    /// store does not keep (see `WorldState+RefreshIndex.swift`).
    var refreshTokensByOwner = TrackedMap<RefreshTokenOwner, [String]>()
    var accessGrants = TrackedMap<String, AccessGrant>()
    /// Refresh tokens their persona's revocation ended (see `WorldState+EndedTokens.swift`).
    var refreshTokensEndedByUser = TrackedMap<String, EndedRefreshToken>()
    @Tracked public internal(set) var autoApprove: AutoApprove?
    @Tracked public internal(set) var keys: KeyRing
    @Tracked var faults = FaultQueue()
    /// Server-to-server notifications, pending and sent.
    @Tracked var outbox = NotificationOutbox()
    /// Mail the private relay accepted.
    @Tracked var relay = RelayInbox()
    /// App groups moved between teams, oldest first.
    @Tracked public internal(set) var transfers: [AppTransfer] = []
    /// Team access tokens for user migration.
    var teamTokens = TrackedMap<String, TeamAccessToken>()
    /// Relay forwarding set for one relay address, where it differs from what the persona's
    /// ``Persona/relayForwarding`` gives every address (see `WorldState+Forwarding.swift`).
    var relayForwarding = TrackedMap<RelayAddressOwner, Bool>()
    /// When codes and access tokens held reach this many, expired ones are dropped.
    @Tracked var purgeThreshold = WorldState.minimumPurgeThreshold
    /// The clock's time at the last purge of expired codes and access tokens; not stored (a world read
    /// back from a store purges at its first sign-in).
    var purgedAt: Date?
    /// The domain each relay address in use was given out at (see `WorldState+RelayDomains.swift`).
    var relayAddressDomains = TrackedMap<RelayAddressKey, RelayOptions.AddressDomain>()
    /// The domains new and unrecorded relay addresses get (`relay.addressDomain`): the scenario's, not
    /// kept in a store or a snapshot (the ``World`` keeps its own when a state replaces its own).
    var relayDomains = RelayDomainPolicy(RelayOptions())
    static let minimumPurgeThreshold = 10_000
    /// Clock time after which the next sign-in or refresh purges expired codes and access tokens.
    static let purgeInterval: TimeInterval = 60

    /// Registrations, personas and keys; everything else empty.
    init(directory: Directory, personas: [Persona], keys: KeyRing) {
        self.directory = directory
        self.personas = personas
        self.keys = keys
        autoApprove = nil
    }

    /// The scenario's starting point: its registrations, personas, keys and auto-approve; no grants.
    init(scenario: Scenario) throws(KeyRing.Failure) {
        self.init(directory: Directory(teams: scenario.teams, groups: scenario.groups), personas: scenario.personas,
                  keys: try KeyRing(published: scenario.signingKeys, activeKID: scenario.activeSigningKeyID,
                                    shuffled: scenario.settings.shuffleJWKS))
        autoApprove = scenario.autoApprove
        relayDomains = RelayDomainPolicy(scenario.settings.relay)
        for fault in scenario.faults { _ = try? faults.enqueue(fault) }
    }

    /// The persona with `id`, deleted or not.
    public func persona(_ id: String) -> Persona? { personas.first { $0.id == id } }

    /// The persona's consent to `groupID`, if they have signed in to the group.
    public func consent(personaID: String, groupID: String) -> Consent? {
        consents[ConsentKey(personaID: personaID, groupID: groupID)]
    }

    /// The queued faults, in order.
    public var queuedFaults: [Fault] { faults.faults }

    /// Every notification delivery kept, oldest first, with its attempts.
    public var notificationDeliveries: [NotificationDelivery] { outbox.deliveries.entries }

    /// Every message the relay accepted and still keeps, oldest first.
    public var relayMessages: [RelayMessage] { relay.messages.entries }

    /// How many codes and access tokens are held.
    var heldCounts: (codes: Int, accessTokens: Int) { (codes.count, accessGrants.count) }

    /// The team-scoped `sub` of a persona (a re-created account gets a new one).
    public func subject(personaID: String, teamID: String) -> String {
        AppleIdentifiers.subject(teamID: teamID, personaID: accountKey(personaID))
    }

    /// The persona's account under a team, whose `sub` and relay address are derived when asked for.
    func account(personaID: String, teamID: String) -> TeamAccount {
        let key = accountKey(personaID)
        return TeamAccount(accountKey: key, teamID: teamID, relayDomain: relayDomain(RelayAddressKey(accountKey: key, teamID: teamID)))
    }

    /// What `sub` and relay addresses are derived from: the persona id, plus the generation of a re-created account.
    func accountKey(_ personaID: String) -> String {
        let generation = accountGenerations[personaID] ?? 0
        return generation == 0 ? personaID : "\(personaID)#\(generation)"
    }
}

extension WorldState {
    /// The sections of the state, named as in snapshots and in a store's rows.
    enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case directory, personas, deletedAccounts, accountGenerations
        case consents, codes, refreshGrants, refreshTokensByOwner, accessGrants, refreshTokensEndedByUser
        case autoApprove, keys, faults, outbox, relay, relayForwarding, relayAddressDomains, transfers, teamTokens, purgeThreshold
    }

    /// Every section, in the order of ``CodingKeys``.
    static let sections: [any StateSection] = CodingKeys.allCases.map(section)

    /// How a snapshot and a store keep each section: the one list of them (the compiler asks for a new
    /// name's section here).
    static func section(_ name: CodingKeys) -> any StateSection {
        switch name {
        case .directory: return WholeSection(name: name, path: \._directory)
        case .personas: return WholeSection(name: name, path: \._personas)
        case .deletedAccounts: return WholeSection(name: name, path: \._deletedAccounts, stored: { $0.sorted() })
        case .accountGenerations: return WholeSection(name: name, path: \._accountGenerations)
        case .consents: return EntrySection(name: name, path: \.consents)
        case .codes: return EntrySection(name: name, path: \.codes)
        case .refreshGrants:
            return EntrySection(name: name, path: \.refreshGrants, applied: { state, token, previous in
                state.reindexRefreshGrant(token: token, previous: previous)
            })
        // Rebuilt from the grants (see `WorldState+RefreshIndex.swift`); rows earlier versions wrote are read back.
        case .refreshTokensByOwner: return EntrySection(name: name, path: \.refreshTokensByOwner, keptInStores: false)
        case .accessGrants: return EntrySection(name: name, path: \.accessGrants)
        case .refreshTokensEndedByUser: return EntrySection(name: name, path: \.refreshTokensEndedByUser)
        case .autoApprove: return WholeSection(name: name, path: \._autoApprove, omitted: { $0 == nil })
        case .keys:
            return WholeSection(name: name, path: \._keys, read: { ring throws(StateStoreError) in
                guard ring.key(withID: ring.activeKID) != nil else {
                    throw StateStoreError("row keys names active key \(ring.activeKID.prefix(40)), which it does not publish")
                }
                return ring
            })
        case .faults: return WholeSection(name: name, path: \._faults)
        case .outbox: return ListedSection(name: name, path: \._outbox, list: \.deliveries, listRowName: "outboxDeliveries")
        case .relay:
            return ListedSection(name: name, path: \._relay, list: \.messages, listRowName: "relayMessages",
                                 afterRestore: { $0.recountBytes() })
        case .relayForwarding: return EntrySection(name: name, path: \.relayForwarding)
        case .relayAddressDomains: return EntrySection(name: name, path: \.relayAddressDomains)
        case .transfers: return WholeSection(name: name, path: \._transfers)
        case .teamTokens: return EntrySection(name: name, path: \.teamTokens)
        case .purgeThreshold: return WholeSection(name: name, path: \._purgeThreshold, read: { max(Self.minimumPurgeThreshold, $0) })
        }
    }
}
