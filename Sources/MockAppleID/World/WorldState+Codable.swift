import Foundation

/// Reading a snapshot (``WorldSnapshot``): the registrations, personas and keys must be there; every
/// other section may be missing, as in a snapshot taken before the section existed, and starts empty.
extension WorldState {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        directory = try container.decode(Directory.self, forKey: .directory)
        personas = try container.decode([Persona].self, forKey: .personas)
        keys = try container.decode(KeyRing.self, forKey: .keys)
        func optional<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        deletedAccounts = try optional(.deletedAccounts, deletedAccounts)
        accountGenerations = try optional(.accountGenerations, accountGenerations)
        consents = try optional(.consents, consents)
        codes = try optional(.codes, codes)
        refreshGrants = try optional(.refreshGrants, refreshGrants)
        refreshTokensByOwner = try optional(.refreshTokensByOwner, refreshTokensByOwner)
        accessGrants = try optional(.accessGrants, accessGrants)
        refreshTokensEndedByUser = try optional(.refreshTokensEndedByUser, refreshTokensEndedByUser)
        autoApprove = try optional(.autoApprove, autoApprove)
        faults = try optional(.faults, faults)
        outbox = try optional(.outbox, outbox)
        relay = try optional(.relay, relay)
        relayForwarding = try optional(.relayForwarding, relayForwarding)
        transfers = try optional(.transfers, transfers)
        teamTokens = try optional(.teamTokens, teamTokens)
        purgeThreshold = try optional(.purgeThreshold, purgeThreshold)
    }
}
