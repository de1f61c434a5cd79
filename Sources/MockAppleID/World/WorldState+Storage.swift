import Foundation

/// The state as rows for a ``WorldStore``: each section (a stored property, named by its coding key) is
/// one row, except the grant maps, which are one row per entry so that a sign-in writes a few small rows,
/// and relay mail and notification deliveries, one row per message or delivery beside their section's.
/// The index of refresh tokens by persona and client has no rows: it is rebuilt from the grants'.
extension WorldState {
    /// The rows of relay messages and of notification deliveries (key: the message's or delivery's id).
    static let relayMessagesSection = "relayMessages"
    static let outboxDeliveriesSection = "outboxDeliveries"

    /// The sections of the state, named as in snapshots and in a store's rows.
    enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case directory, personas, deletedAccounts, accountGenerations
        case consents, codes, refreshGrants, refreshTokensByOwner, accessGrants, refreshTokensEndedByUser
        case autoApprove, keys, faults, outbox, relay, relayForwarding, transfers, teamTokens, purgeThreshold
    }

    /// Remembers changes from now on, for ``takeChanges()`` (or stops, when the world is no longer kept in a store).
    mutating func setTracking(_ on: Bool) {
        // The lists first: changing them touches their sections, which `changes` then starts or stops afresh.
        relay.messages.setTracking(on)
        outbox.deliveries.setTracking(on)
        changes.setTracking(on)
        consents.setTracking(on)
        codes.setTracking(on)
        refreshGrants.setTracking(on)
        accessGrants.setTracking(on)
        refreshTokensEndedByUser.setTracking(on)
        relayForwarding.setTracking(on)
        teamTokens.setTracking(on)
    }

    /// The rows changed since the last call, each once with its value now (nil: removed), and forgets them.
    mutating func takeChanges() -> [PendingRow] {
        // The lists first (taking their changes touches their sections, which changed anyway).
        var changed: [PendingRow] = []
        if relay.messages.hasChanges { changed += Self.listRows(Self.relayMessagesSection, relay.messages.takeChangedEntries()) }
        if outbox.deliveries.hasChanges { changed += Self.listRows(Self.outboxDeliveriesSection, outbox.deliveries.takeChangedEntries()) }
        changed += changes.take().flatMap { rows(of: $0) }
        changed += Self.entries(.consents, consents.takeChangedKeys())
        changed += Self.entries(.codes, codes.takeChangedKeys())
        changed += Self.entries(.refreshGrants, refreshGrants.takeChangedKeys())
        changed += Self.entries(.accessGrants, accessGrants.takeChangedKeys())
        changed += Self.entries(.refreshTokensEndedByUser, refreshTokensEndedByUser.takeChangedKeys())
        changed += Self.entries(.relayForwarding, relayForwarding.takeChangedKeys())
        changed += Self.entries(.teamTokens, teamTokens.takeChangedKeys())
        return changed
    }

    /// Every row of the state.
    func allRows() -> [PendingRow] {
        CodingKeys.allCases.flatMap { rows(of: $0) }
            + Self.listRows(Self.relayMessagesSection, relay.messages.storedEntries.map { ($0.entry.id, $0) })
            + Self.listRows(Self.outboxDeliveriesSection, outbox.deliveries.storedEntries.map { ($0.entry.id, $0) })
    }

    private static func listRows<Entry>(_ section: String, _ entries: [(id: String, stored: TrackedList<Entry>.Stored?)]) -> [PendingRow] {
        entries.map { PendingRow(section: section, key: $0.id, value: $0.stored, removed: $0.stored == nil) }
    }

    /// The rows of one section: one for a whole section (relay mail and deliveries left out: they
    /// have rows of their own), one per entry for a map.
    private func rows(of section: CodingKeys) -> [PendingRow] {
        switch section {
        case .directory: return [PendingRow(section, value: directory)]
        case .personas: return [PendingRow(section, value: personas)]
        case .deletedAccounts: return [PendingRow(section, value: deletedAccounts.sorted())]
        case .accountGenerations: return [PendingRow(section, value: accountGenerations)]
        case .autoApprove: return [PendingRow(section, value: autoApprove)]
        case .keys: return [PendingRow(section, value: keys)]
        case .faults: return [PendingRow(section, value: faults)]
        case .outbox:
            var head = outbox
            head.deliveries = TrackedList()
            return [PendingRow(section, value: head)]
        case .relay:
            var head = relay
            head.messages = TrackedList()
            return [PendingRow(section, value: head)]
        case .transfers: return [PendingRow(section, value: transfers)]
        case .purgeThreshold: return [PendingRow(section, value: purgeThreshold)]
        case .consents: return Self.entries(section, consents.storage.map { ($0.key, $0.value) })
        case .codes: return Self.entries(section, codes.storage.map { ($0.key, $0.value) })
        case .refreshGrants: return Self.entries(section, refreshGrants.storage.map { ($0.key, $0.value) })
        case .refreshTokensByOwner: return []  // rebuilt from the grants when read back
        case .accessGrants: return Self.entries(section, accessGrants.storage.map { ($0.key, $0.value) })
        case .refreshTokensEndedByUser: return Self.entries(section, refreshTokensEndedByUser.storage.map { ($0.key, $0.value) })
        case .relayForwarding: return Self.entries(section, relayForwarding.storage.map { ($0.key, $0.value) })
        case .teamTokens: return Self.entries(section, teamTokens.storage.map { ($0.key, $0.value) })
        }
    }

    private static func entries<Key: Encodable & Hashable & Sendable, Value: Encodable & Sendable>(
        _ section: CodingKeys, _ entries: [(key: Key, value: Value?)]
    ) -> [PendingRow] {
        entries.map { PendingRow(section, key: $0.key, value: $0.value) }
    }

    /// Puts stored rows back (tracking nothing), in any order: relay messages and deliveries are put
    /// in their places once all are read, and the inbox's byte count is worked out from its messages.
    mutating func restore(_ rows: [WorldRow], decoder: JSONDecoder) throws(StateStoreError) {
        var messages: [TrackedList<RelayMessage>.Stored] = []
        var deliveries: [TrackedList<NotificationDelivery>.Stored] = []
        for row in rows {
            switch row.section {
            case Self.relayMessagesSection: messages.append(try Self.entry(row, decoder))
            case Self.outboxDeliveriesSection: deliveries.append(try Self.entry(row, decoder))
            default: try restore(row, decoder: decoder)
            }
        }
        relay.messages.restore(messages)
        relay.recountBytes()
        outbox.deliveries.restore(deliveries)
        rebuildRefreshIndex()
    }

    /// Applies rows another server wrote to a shared store since this copy last caught up (a row
    /// without a value was removed), tracking nothing. Rows of sections kept beside the state are
    /// left to their owners.
    mutating func apply(_ changes: [WorldRowChange], decoder: JSONDecoder) throws(StateStoreError) {
        var relayChanged = false
        for change in changes {
            let row = WorldRow(section: change.section, key: change.key, value: change.value ?? "null")
            switch change.section {
            case Self.relayMessagesSection:
                relay.messages.restore(try change.value.map { _ throws(StateStoreError) in try Self.entry(row, decoder) }, id: change.key)
                relayChanged = true
            case Self.outboxDeliveriesSection:
                outbox.deliveries.restore(try change.value.map { _ throws(StateStoreError) in try Self.entry(row, decoder) }, id: change.key)
            case CodingKeys.relay.rawValue:
                let messages = relay.messages
                try restore(row, decoder: decoder)
                relay.messages = messages
                relayChanged = true
            case CodingKeys.outbox.rawValue:
                let deliveries = outbox.deliveries
                try restore(row, decoder: decoder)
                outbox.deliveries = deliveries
            case CodingKeys.refreshGrants.rawValue:
                let previous = refreshGrants[change.key]
                try restore(row, removing: change.value == nil, decoder: decoder)
                reindexRefreshGrant(token: change.key, previous: previous)
            case CodingKeys.refreshTokensByOwner.rawValue:
                continue  // the index: kept up by the grants' rows
            default:
                // A whole section is never removed; a section this version does not know is left alone.
                guard CodingKeys(rawValue: change.section) != nil, change.value != nil || !change.key.isEmpty else { continue }
                try restore(row, removing: change.value == nil, decoder: decoder)
            }
        }
        if relayChanged { relay.recountBytes() }
    }

    /// Puts one row of a section or map back; a row of a section this version does not know is an error.
    private mutating func restore(_ row: WorldRow, removing: Bool = false, decoder: JSONDecoder) throws(StateStoreError) {
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
            // The head rows of these two sections; their deliveries and messages have rows of their own.
            case .outbox: outbox = try decoder.decode(NotificationOutbox.self, from: value)
            case .relay: relay = try decoder.decode(RelayInbox.self, from: value)
            case .transfers: transfers = try decoder.decode([AppTransfer].self, from: value)
            case .purgeThreshold: purgeThreshold = max(Self.minimumPurgeThreshold, try decoder.decode(Int.self, from: value))
            case .consents: try Self.restore(row, removing ? nil : value, into: &consents, decoder)
            case .codes: try Self.restore(row, removing ? nil : value, into: &codes, decoder)
            case .refreshGrants: try Self.restore(row, removing ? nil : value, into: &refreshGrants, decoder)
            // Written by earlier versions, which kept the index (a state file's is moved into its grants when
            // the file is opened; a database's is read here): the order of grants without a serial.
            case .refreshTokensByOwner: try Self.restore(row, removing ? nil : value, into: &refreshTokensByOwner, decoder)
            case .accessGrants: try Self.restore(row, removing ? nil : value, into: &accessGrants, decoder)
            case .refreshTokensEndedByUser: try Self.restore(row, removing ? nil : value, into: &refreshTokensEndedByUser, decoder)
            case .relayForwarding: try Self.restore(row, removing ? nil : value, into: &relayForwarding, decoder)
            case .teamTokens: try Self.restore(row, removing ? nil : value, into: &teamTokens, decoder)
            }
        } catch let error as StateStoreError {
            throw error
        } catch {
            throw StateStoreError("row \(row.section)\(row.key.isEmpty ? "" : " \(row.key)") cannot be read: \(error)")
        }
    }

    /// A message's or delivery's row: its place and the entry, which must carry the row's key as its id.
    private static func entry<Entry>(_ row: WorldRow, _ decoder: JSONDecoder) throws(StateStoreError) -> TrackedList<Entry>.Stored {
        let stored: TrackedList<Entry>.Stored
        do { stored = try decoder.decode(TrackedList<Entry>.Stored.self, from: Data(row.value.utf8)) } catch {
            throw StateStoreError("row \(row.section) \(row.key.prefix(80)) cannot be read: \(error)")
        }
        guard stored.entry.id == row.key, (0..<Int(Int32.max)).contains(stored.position) else {
            throw StateStoreError("row \(row.section) \(row.key.prefix(80)) is damaged (id or position)")
        }
        return stored
    }

    /// Puts a map's entry back, or removes it (`value` nil).
    private static func restore<Key, Value>(_ row: WorldRow, _ value: Data?, into map: inout TrackedMap<Key, Value>,
                                            _ decoder: JSONDecoder) throws {
        let key: Key
        if Key.self == String.self, let text = row.key as? Key {
            key = text
        } else {
            key = try decoder.decode(Key.self, from: Data(row.key.utf8))
        }
        map.restore(try value.map { try decoder.decode(Value.self, from: $0) }, forKey: key)
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
