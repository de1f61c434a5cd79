import Foundation

/// The state as rows a ``WorldKeeper`` keeps, section by section (see ``StateSection``): a whole section
/// is one row, a map one row per entry so that a sign-in writes a few small rows, and relay mail and
/// notification deliveries one row per message or delivery beside their section's. The index of
/// refresh tokens by persona and client has no rows: it is rebuilt from the grants'.
extension WorldState {
    /// The sections by the names of the rows they read back.
    private static let sectionsByRowName: [String: any StateSection] = Dictionary(
        uniqueKeysWithValues: sections.flatMap { section in section.rowNames.map { ($0, section) } })

    /// Remembers changes from now on, for ``takeChanges()`` (or stops, when the world is no longer kept in a store).
    mutating func setTracking(_ on: Bool) {
        for section in Self.sections { section.setTracking(on, in: &self) }
    }

    /// The rows changed since the last call, each once with its value now (nil: removed), and forgets them.
    mutating func takeChanges() -> [PendingRow] {
        Self.sections.flatMap { $0.takeChanges(of: &self) }
    }

    /// Every row of the state.
    func allRows() -> [PendingRow] {
        Self.sections.flatMap { $0.rows(of: self) }
    }

    /// Puts stored rows back (tracking nothing), in any order: relay messages and deliveries are put
    /// in their places once all are read, and the inbox's byte count is worked out from its messages.
    mutating func restore(_ rows: [WorldRow], decoder: JSONDecoder) throws(StateStoreError) {
        var rowsBySection: [CodingKeys: [WorldRow]] = [:]
        for row in rows {
            guard let section = Self.sectionsByRowName[row.section] else {
                throw StateStoreError("holds a section this version does not know: \(row.section.prefix(80))")
            }
            rowsBySection[section.name, default: []].append(row)
        }
        for section in Self.sections {
            try section.restore(rowsBySection[section.name] ?? [], into: &self, decoder: decoder)
        }
        rebuildRefreshIndex()
    }

    /// Applies rows another server wrote to a shared store since this copy last caught up (a row
    /// without a value was removed), tracking nothing. Rows of sections this version does not know
    /// are left alone (a newer server's).
    mutating func apply(_ changes: [WorldRowChange], decoder: JSONDecoder) throws(StateStoreError) {
        var changesBySection: [CodingKeys: [WorldRowChange]] = [:]
        for change in changes {
            guard let section = Self.sectionsByRowName[change.section] else { continue }
            changesBySection[section.name, default: []].append(change)
        }
        for section in Self.sections {
            guard let changes = changesBySection[section.name] else { continue }
            try section.apply(changes, to: &self, decoder: decoder)
        }
    }
}
