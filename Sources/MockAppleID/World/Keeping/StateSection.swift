import Foundation

/// How one section of a ``WorldState`` is kept: under its name in a snapshot, and as rows in a store.
/// A whole section is one row (``WholeSection``), a map one row per entry (``EntrySection``), and a
/// section holding a list (relay mail, notification deliveries) one row for the rest of it and one per
/// entry of the list (``ListedSection``). ``WorldState/section(_:)`` says once which each section is.
protocol StateSection: Sendable {
    /// The section's name in snapshots and in a store's rows.
    var name: WorldState.CodingKeys { get }
    /// The names of the store's rows the section reads back: its own, and its list's.
    var rowNames: [String] { get }

    /// Remembers changes from now on, or stops (a world no longer kept in a store).
    func setTracking(_ on: Bool, in state: inout WorldState)
    /// The rows changed since the last call, each once with its value now; forgets them.
    func takeChanges(of state: inout WorldState) -> [PendingRow]
    /// Every row of the section.
    func rows(of state: WorldState) -> [PendingRow]
    /// Puts the section's stored rows back (all of them, as a store is read), in any order.
    func restore(_ rows: [WorldRow], into state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError)
    /// Applies rows another server wrote, in order (a row without a value was removed).
    func apply(_ changes: [WorldRowChange], to state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError)

    /// Writes the section into a snapshot.
    func encode(_ state: WorldState, to container: inout KeyedEncodingContainer<WorldState.CodingKeys>) throws
    /// Reads the section from a snapshot, where it may be missing (the state keeps what it has).
    func decodeIfPresent(_ container: KeyedDecodingContainer<WorldState.CodingKeys>, into state: inout WorldState) throws
}

extension StateSection {
    var rowNames: [String] { [name.rawValue] }

    /// Decodes a row's JSON, naming the row when it cannot be read.
    func decode<T: Decodable>(_ type: T.Type, _ section: String, key: String, _ value: String, _ decoder: JSONDecoder) throws(StateStoreError) -> T {
        do { return try decoder.decode(type, from: Data(value.utf8)) } catch {
            throw StateStoreError("row \(section)\(key.isEmpty ? "" : " \(key.prefix(80))") cannot be read: \(error)")
        }
    }
}

/// A section kept as one row, changed as a whole.
struct WholeSection<Value: Codable & Sendable>: StateSection {
    let name: WorldState.CodingKeys
    let path: WritableKeyPath<WorldState, Tracked<Value>> & Sendable
    /// What a row holds (the value, unless said otherwise).
    var stored: @Sendable (Value) -> any Encodable & Sendable = { $0 }
    /// Checks or adjusts a value read back from a store.
    var read: @Sendable (Value) throws(StateStoreError) -> Value = { $0 }
    /// Left out of a snapshot when this holds (an absent optional).
    var omitted: @Sendable (Value) -> Bool = { _ in false }

    func setTracking(_ on: Bool, in state: inout WorldState) { state[keyPath: path].setTracking(on) }

    func takeChanges(of state: inout WorldState) -> [PendingRow] {
        state[keyPath: path].takeChange() ? rows(of: state) : []
    }

    func rows(of state: WorldState) -> [PendingRow] { [PendingRow(name, value: stored(state[keyPath: path].wrappedValue))] }

    func restore(_ rows: [WorldRow], into state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError) {
        for row in rows {
            state[keyPath: path].wrappedValue = try read(decode(Value.self, row.section, key: row.key, row.value, decoder))
        }
    }

    func apply(_ changes: [WorldRowChange], to state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError) {
        // A whole section is never removed.
        for change in changes {
            guard let value = change.value else { continue }
            state[keyPath: path].wrappedValue = try read(decode(Value.self, change.section, key: change.key, value, decoder))
        }
    }

    func encode(_ state: WorldState, to container: inout KeyedEncodingContainer<WorldState.CodingKeys>) throws {
        let value = state[keyPath: path].wrappedValue
        if !omitted(value) { try container.encode(value, forKey: name) }
    }

    func decodeIfPresent(_ container: KeyedDecodingContainer<WorldState.CodingKeys>, into state: inout WorldState) throws {
        if let value = try container.decodeIfPresent(Value.self, forKey: name) { state[keyPath: path].wrappedValue = value }
    }
}

/// A map kept as one row per entry, keyed by the entry's key (as it is when a string, else as JSON).
struct EntrySection<Key: Hashable & Sendable & Codable, Value: Sendable & Codable>: StateSection {
    let name: WorldState.CodingKeys
    let path: WritableKeyPath<WorldState, TrackedMap<Key, Value>> & Sendable
    /// False for an index the state rebuilds from other sections: a store writes no rows for it (rows
    /// an earlier version wrote are still read back).
    var keptInStores = true
    /// Called after each entry another server wrote is applied, with what this copy held before.
    var applied: (@Sendable (inout WorldState, Key, Value?) -> Void)?

    func setTracking(_ on: Bool, in state: inout WorldState) {
        if keptInStores { state[keyPath: path].setTracking(on) }
    }

    func takeChanges(of state: inout WorldState) -> [PendingRow] {
        keptInStores ? Self.rows(name, state[keyPath: path].takeChangedKeys()) : []
    }

    func rows(of state: WorldState) -> [PendingRow] {
        keptInStores ? Self.rows(name, state[keyPath: path].storage.map { ($0.key, $0.value) }) : []
    }

    private static func rows(_ name: WorldState.CodingKeys, _ entries: [(key: Key, value: Value?)]) -> [PendingRow] {
        entries.map { PendingRow(name, key: $0.key, value: $0.value) }
    }

    func restore(_ rows: [WorldRow], into state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError) {
        for row in rows { try put(row.section, row.key, row.value, into: &state, decoder) }
    }

    func apply(_ changes: [WorldRowChange], to state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError) {
        guard keptInStores else { return }
        for change in changes where change.value != nil || !change.key.isEmpty {
            let (key, previous) = try put(change.section, change.key, change.value, into: &state, decoder)
            applied?(&state, key, previous)
        }
    }

    /// Puts an entry back, or removes it (`value` nil); returns its key and what was held before.
    @discardableResult
    private func put(_ section: String, _ keyText: String, _ value: String?, into state: inout WorldState,
                     _ decoder: JSONDecoder) throws(StateStoreError) -> (Key, Value?) {
        let key: Key
        if Key.self == String.self, let text = keyText as? Key {
            key = text
        } else {
            key = try decode(Key.self, section, key: keyText, keyText, decoder)
        }
        let previous = state[keyPath: path][key]
        state[keyPath: path].restore(try value.map { value throws(StateStoreError) in try decode(Value.self, section, key: keyText, value, decoder) }, forKey: key)
        return (key, previous)
    }

    func encode(_ state: WorldState, to container: inout KeyedEncodingContainer<WorldState.CodingKeys>) throws {
        try container.encode(state[keyPath: path], forKey: name)
    }

    func decodeIfPresent(_ container: KeyedDecodingContainer<WorldState.CodingKeys>, into state: inout WorldState) throws {
        if let map = try container.decodeIfPresent(TrackedMap<Key, Value>.self, forKey: name) { state[keyPath: path] = map }
    }
}

/// A section holding a list of entries with ids: one row for the rest of it (its "head", whose row
/// is written again whenever the list changes) and one row per entry, which carries its place in the list.
struct ListedSection<Head: Codable & Sendable, Entry: Identifiable & Codable & Sendable>: StateSection where Entry.ID == String {
    let name: WorldState.CodingKeys
    let path: WritableKeyPath<WorldState, Tracked<Head>> & Sendable
    let list: WritableKeyPath<Head, TrackedList<Entry>> & Sendable
    /// The name of the list's rows (the key: the entry's id).
    let listRowName: String
    /// Works out what the head derives from its list, once the list was restored or changed.
    var afterRestore: @Sendable (inout Head) -> Void = { _ in }

    var rowNames: [String] { [name.rawValue, listRowName] }

    func setTracking(_ on: Bool, in state: inout WorldState) {
        // The list first: changing it counts as a change of the head, which setting the head's tracking then forgets.
        state[keyPath: path].wrappedValue[keyPath: list].setTracking(on)
        state[keyPath: path].setTracking(on)
    }

    func takeChanges(of state: inout WorldState) -> [PendingRow] {
        // The list first: taking its changes changes the head, whose row is written anyway when an entry changed.
        var rows: [PendingRow] = []
        if state[keyPath: path].wrappedValue[keyPath: list].hasChanges {
            rows = listRows(state[keyPath: path].wrappedValue[keyPath: list].takeChangedEntries())
        }
        if state[keyPath: path].takeChange() { rows.append(headRow(state)) }
        return rows
    }

    func rows(of state: WorldState) -> [PendingRow] {
        [headRow(state)] + listRows(state[keyPath: path].wrappedValue[keyPath: list].storedEntries.map { ($0.entry.id, $0) })
    }

    private func headRow(_ state: WorldState) -> PendingRow {
        var head = state[keyPath: path].wrappedValue
        head[keyPath: list] = TrackedList()
        return PendingRow(name, value: head)
    }

    private func listRows(_ entries: [(id: String, stored: TrackedList<Entry>.Stored?)]) -> [PendingRow] {
        entries.map { PendingRow(section: listRowName, key: $0.id, value: $0.stored, removed: $0.stored == nil) }
    }

    func restore(_ rows: [WorldRow], into state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError) {
        var entries: [TrackedList<Entry>.Stored] = []
        for row in rows {
            if row.section == listRowName {
                entries.append(try entry(row.key, row.value, decoder))
            } else {
                try putHead(row.section, row.value, into: &state, decoder)
            }
        }
        state[keyPath: path].wrappedValue[keyPath: list].restore(entries)
        afterRestore(&state[keyPath: path].wrappedValue)
    }

    func apply(_ changes: [WorldRowChange], to state: inout WorldState, decoder: JSONDecoder) throws(StateStoreError) {
        for change in changes {
            if change.section == listRowName {
                let stored = try change.value.map { value throws(StateStoreError) in try entry(change.key, value, decoder) }
                state[keyPath: path].wrappedValue[keyPath: list].restore(stored, id: change.key)
            } else if let value = change.value {
                try putHead(change.section, value, into: &state, decoder)
            }
        }
        afterRestore(&state[keyPath: path].wrappedValue)
    }

    /// Puts the head back, keeping the list this copy holds (the head's row carries none).
    private func putHead(_ section: String, _ value: String, into state: inout WorldState, _ decoder: JSONDecoder) throws(StateStoreError) {
        var head = try decode(Head.self, section, key: "", value, decoder)
        head[keyPath: list] = state[keyPath: path].wrappedValue[keyPath: list]
        state[keyPath: path].wrappedValue = head
    }

    /// An entry's row: its place and the entry, which must carry the row's key as its id.
    private func entry(_ key: String, _ value: String, _ decoder: JSONDecoder) throws(StateStoreError) -> TrackedList<Entry>.Stored {
        let stored = try decode(TrackedList<Entry>.Stored.self, listRowName, key: key, value, decoder)
        guard stored.entry.id == key, (0..<Int(Int32.max)).contains(stored.position) else {
            throw StateStoreError("row \(listRowName) \(key.prefix(80)) is damaged (id or position)")
        }
        return stored
    }

    func encode(_ state: WorldState, to container: inout KeyedEncodingContainer<WorldState.CodingKeys>) throws {
        try container.encode(state[keyPath: path].wrappedValue, forKey: name)
    }

    func decodeIfPresent(_ container: KeyedDecodingContainer<WorldState.CodingKeys>, into state: inout WorldState) throws {
        if let head = try container.decodeIfPresent(Head.self, forKey: name) { state[keyPath: path].wrappedValue = head }
    }
}
