import Foundation

/// Everything about a provider that changes: registrations, personas, consents, codes and grants,
/// the signing keys, auto-approve and queued faults. One value behind one lock (``World``); every
/// transition is a mutating method that returns a typed result and appends typed events, so parallel
/// requests never see half a change. `Codable`: a snapshot of it restores the world exactly.
public struct WorldState: Sendable, Codable {
    public internal(set) var directory: Directory { didSet { changes.touch(.directory) } }
    public internal(set) var personas: [Persona] { didSet { changes.touch(.personas) } }
    /// Personas whose Apple Account was deleted: they cannot sign in until re-created.
    public internal(set) var deletedAccounts: Set<String> = [] { didSet { changes.touch(.deletedAccounts) } }
    /// How many times each persona's account was re-created after deletion; a re-created account has a new `sub`.
    public internal(set) var accountGenerations: [String: Int] = [:] { didSet { changes.touch(.accountGenerations) } }
    var consents = TrackedMap<ConsentKey, Consent>()
    var codes = TrackedMap<String, IssuedCode>()
    var refreshGrants = TrackedMap<String, RefreshGrant>()
    /// Each persona and client's refresh tokens, oldest first: an index of `refreshGrants`, which a
    /// store does not keep (see `WorldState+RefreshIndex.swift`).
    var refreshTokensByOwner = TrackedMap<RefreshTokenOwner, [String]>()
    var accessGrants = TrackedMap<String, AccessGrant>()
    /// Refresh tokens their persona's revocation ended (see `WorldState+EndedTokens.swift`).
    var refreshTokensEndedByUser = TrackedMap<String, EndedRefreshToken>()
    public internal(set) var autoApprove: AutoApprove? { didSet { changes.touch(.autoApprove) } }
    public internal(set) var keys: KeyRing { didSet { changes.touch(.keys) } }
    var faults = FaultQueue() { didSet { changes.touch(.faults) } }
    /// Server-to-server notifications, pending and sent.
    var outbox = NotificationOutbox() { didSet { changes.touch(.outbox) } }
    /// Mail the private relay accepted.
    var relay = RelayInbox() { didSet { changes.touch(.relay) } }
    /// App groups moved between teams, oldest first.
    public internal(set) var transfers: [AppTransfer] = [] { didSet { changes.touch(.transfers) } }
    /// Team access tokens for user migration.
    var teamTokens = TrackedMap<String, TeamAccessToken>()
    /// Relay forwarding set for one relay address, where it differs from what the persona's
    /// ``Persona/relayForwarding`` gives every address (see `WorldState+Forwarding.swift`).
    var relayForwarding = TrackedMap<RelayAddressOwner, Bool>()
    /// When codes and access tokens held reach this many, expired ones are dropped.
    var purgeThreshold = WorldState.minimumPurgeThreshold { didSet { changes.touch(.purgeThreshold) } }
    /// The clock's time at the last purge of expired codes and access tokens; not stored (a world read
    /// back from a store purges at its first sign-in).
    var purgedAt: Date?
    /// Which whole sections changed since a store last took them (see `WorldState+Storage.swift`).
    var changes = SectionChanges()
    /// The domain relay addresses are given out at (`relay.addressDomain`): a setting of the scenario, not
    /// kept in a store or a snapshot (the ``World`` keeps its scenario's when a state replaces its own).
    var relayDomain = RelayOptions.AddressDomain.privateRelay
    static let minimumPurgeThreshold = 10_000
    /// Clock time after which the next sign-in or refresh purges expired codes and access tokens.
    static let purgeInterval: TimeInterval = 60

    /// The scenario's starting point: its registrations, personas, keys and auto-approve; no grants.
    init(scenario: Scenario) throws(KeyRing.Failure) {
        directory = Directory(teams: scenario.teams, groups: scenario.groups)
        personas = scenario.personas
        autoApprove = scenario.autoApprove
        keys = try KeyRing(published: scenario.signingKeys, activeKID: scenario.activeSigningKeyID,
                           shuffled: scenario.settings.shuffleJWKS)
        relayDomain = scenario.settings.relay.addressDomain
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
        TeamAccount(accountKey: accountKey(personaID), teamID: teamID, relayDomain: relayDomain)
    }

    /// What `sub` and relay addresses are derived from: the persona id, plus the generation of a re-created account.
    func accountKey(_ personaID: String) -> String {
        let generation = accountGenerations[personaID] ?? 0
        return generation == 0 ? personaID : "\(personaID)#\(generation)"
    }
}
