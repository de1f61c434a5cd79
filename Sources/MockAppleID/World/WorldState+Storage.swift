import Foundation

/// The state as rows for a ``WorldStore``: each section (a stored property, named by its coding key) is
/// one row, except the grant maps, which are one row per entry so that a sign-in writes a few small rows.
extension WorldState {
    /// The sections of the state, named as in snapshots and in a store's rows.
    enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case directory, personas, deletedAccounts, accountGenerations
        case consents, codes, refreshGrants, refreshTokensByOwner, accessGrants
        case autoApprove, keys, faults, outbox, relay, transfers, teamTokens, purgeThreshold
    }

    /// Remembers changes from now on, for ``takeChanges()`` (or stops, when the world is no longer kept in a store).
    mutating func setTracking(_ on: Bool) {
        changes.setTracking(on)
        consents.setTracking(on)
        codes.setTracking(on)
        refreshGrants.setTracking(on)
        refreshTokensByOwner.setTracking(on)
        accessGrants.setTracking(on)
        teamTokens.setTracking(on)
    }

    /// The rows changed since the last call, each once with its value now (nil: removed), and forgets them.
    mutating func takeChanges() -> [PendingRow] {
        var changed = changes.take().flatMap { rows(of: $0) }
        changed += Self.entries(.consents, consents.takeChangedKeys())
        changed += Self.entries(.codes, codes.takeChangedKeys())
        changed += Self.entries(.refreshGrants, refreshGrants.takeChangedKeys())
        changed += Self.entries(.refreshTokensByOwner, refreshTokensByOwner.takeChangedKeys())
        changed += Self.entries(.accessGrants, accessGrants.takeChangedKeys())
        changed += Self.entries(.teamTokens, teamTokens.takeChangedKeys())
        return changed
    }

    /// Every row of the state.
    func allRows() -> [PendingRow] { CodingKeys.allCases.flatMap { rows(of: $0) } }

    /// The rows of one section: one for a whole section, one per entry for a map.
    private func rows(of section: CodingKeys) -> [PendingRow] {
        switch section {
        case .directory: return [PendingRow(section, value: directory)]
        case .personas: return [PendingRow(section, value: personas)]
        case .deletedAccounts: return [PendingRow(section, value: deletedAccounts.sorted())]
        case .accountGenerations: return [PendingRow(section, value: accountGenerations)]
        case .autoApprove: return [PendingRow(section, value: autoApprove)]
        case .keys: return [PendingRow(section, value: keys)]
        case .faults: return [PendingRow(section, value: faults)]
        case .outbox: return [PendingRow(section, value: outbox)]
        case .relay: return [PendingRow(section, value: relay)]
        case .transfers: return [PendingRow(section, value: transfers)]
        case .purgeThreshold: return [PendingRow(section, value: purgeThreshold)]
        case .consents: return Self.entries(section, consents.storage.map { ($0.key, $0.value) })
        case .codes: return Self.entries(section, codes.storage.map { ($0.key, $0.value) })
        case .refreshGrants: return Self.entries(section, refreshGrants.storage.map { ($0.key, $0.value) })
        case .refreshTokensByOwner: return Self.entries(section, refreshTokensByOwner.storage.map { ($0.key, $0.value) })
        case .accessGrants: return Self.entries(section, accessGrants.storage.map { ($0.key, $0.value) })
        case .teamTokens: return Self.entries(section, teamTokens.storage.map { ($0.key, $0.value) })
        }
    }

    private static func entries<Key: Encodable & Sendable, Value: Encodable & Sendable>(
        _ section: CodingKeys, _ entries: [(key: Key, value: Value?)]
    ) -> [PendingRow] {
        entries.map { PendingRow(section, key: $0.key, value: $0.value) }
    }

    /// Puts a stored row back (tracking nothing); a row of a section this version does not know is an error.
    mutating func restore(_ row: WorldRow, decoder: JSONDecoder) throws(StateStoreError) {
        guard let section = CodingKeys(rawValue: row.section) else {
            throw StateStoreError("holds a section this version does not know: \(row.section)")
        }
        do {
            let value = Data(row.value.utf8)
            switch section {
            case .directory: directory = try decoder.decode(Directory.self, from: value)
            case .personas: personas = try decoder.decode([Persona].self, from: value)
            case .deletedAccounts: deletedAccounts = try decoder.decode(Set<String>.self, from: value)
            case .accountGenerations: accountGenerations = try decoder.decode([String: Int].self, from: value)
            case .autoApprove: autoApprove = try decoder.decode(AutoApprove?.self, from: value)
            case .keys:
                let ring = try decoder.decode(KeyRing.self, from: value)
                guard ring.key(withID: ring.activeKID) != nil else {
                    throw StateStoreError("row keys names active key \(ring.activeKID.prefix(40)), which it does not publish")
                }
                keys = ring
            case .faults: faults = try decoder.decode(FaultQueue.self, from: value)
            case .outbox: outbox = try decoder.decode(NotificationOutbox.self, from: value)
            case .relay: relay = try decoder.decode(RelayInbox.self, from: value)
            case .transfers: transfers = try decoder.decode([AppTransfer].self, from: value)
            case .purgeThreshold: purgeThreshold = max(Self.minimumPurgeThreshold, try decoder.decode(Int.self, from: value))
            case .consents: try Self.restore(row, value, into: &consents, decoder)
            case .codes: try Self.restore(row, value, into: &codes, decoder)
            case .refreshGrants: try Self.restore(row, value, into: &refreshGrants, decoder)
            case .refreshTokensByOwner: try Self.restore(row, value, into: &refreshTokensByOwner, decoder)
            case .accessGrants: try Self.restore(row, value, into: &accessGrants, decoder)
            case .teamTokens: try Self.restore(row, value, into: &teamTokens, decoder)
            }
        } catch let error as StateStoreError {
            throw error
        } catch {
            throw StateStoreError("row \(row.section)\(row.key.isEmpty ? "" : " \(row.key)") cannot be read: \(error)")
        }
    }

    private static func restore<Key, Value>(_ row: WorldRow, _ value: Data, into map: inout TrackedMap<Key, Value>,
                                            _ decoder: JSONDecoder) throws {
        let key: Key
        if Key.self == String.self, let text = row.key as? Key {
            key = text
        } else {
            key = try decoder.decode(Key.self, from: Data(row.key.utf8))
        }
        map.restore(try decoder.decode(Value.self, from: value), forKey: key)
    }
}

/// Which whole sections of a ``WorldState`` changed since a store last took them.
struct SectionChanges: Sendable {
    private var isTracking = false
    private var touched: Set<WorldState.CodingKeys> = []

    mutating func setTracking(_ on: Bool) {
        isTracking = on
        if !on { touched = [] }
    }

    mutating func touch(_ section: WorldState.CodingKeys) {
        if isTracking { touched.insert(section) }
    }

    mutating func take() -> [WorldState.CodingKeys] {
        guard !touched.isEmpty else { return [] }
        defer { touched.removeAll(keepingCapacity: true) }
        return Array(touched)
    }
}
