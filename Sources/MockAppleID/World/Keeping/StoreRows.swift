import Foundation

/// One stored row: a section of the state (``key`` empty), or one entry of a map section.
public struct WorldRow: Sendable, Equatable {
    public let section: String
    public let key: String
    /// The JSON of the section or entry.
    public let value: String

    public init(section: String, key: String, value: String) {
        self.section = section
        self.key = key
        self.value = value
    }
}

/// A row to write, or to remove (``value`` nil).
public struct WorldRowChange: Sendable, Equatable {
    public let section: String
    public let key: String
    public let value: String?

    public init(section: String, key: String, value: String?) {
        self.section = section
        self.key = key
        self.value = value
    }
}

/// Why a store could not be opened, read or written. The message names the store.
public struct StateStoreError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A change taken from the state under its lock, encoded to JSON later, off the lock: what a ``WorldKeeper``
/// is handed, and encodes (``encodedLatest(_:)``) when it writes.
public struct PendingRow: Sendable {
    public let section: String
    /// Nil for a whole section.
    let key: (any Encodable & Hashable & Sendable)?
    /// Nil when the entry was removed.
    let value: (any Encodable & Sendable)?
    let removed: Bool

    init(_ section: WorldState.CodingKeys, key: (any Encodable & Hashable & Sendable)? = nil, value: (any Encodable & Sendable)?) {
        self.init(section: section.rawValue, key: key, value: value, removed: key != nil && value == nil)
    }

    /// A row of `section` (`key` nil: the whole section); `removed`: the entry is gone.
    init(section: String, key: (any Encodable & Hashable & Sendable)?, value: (any Encodable & Sendable)?, removed: Bool) {
        self.section = section
        self.key = key
        self.value = value
        self.removed = removed
    }

    /// The row as the store takes it (`encoder` sorts keys, so a key always encodes alike). String
    /// keys are stored as they are, other keys as JSON; a whole section that is nil is `null`.
    func encoded(with encoder: JSONEncoder) throws -> WorldRowChange {
        let keyText: String
        switch key {
        case nil: keyText = ""
        case let text as String: keyText = text
        case let key?: keyText = String(decoding: try encoder.encode(key), as: UTF8.self)
        }
        let valueText: String?
        if removed {
            valueText = nil
        } else if let value {
            valueText = String(decoding: try encoder.encode(value), as: UTF8.self)
        } else {
            valueText = "null"
        }
        return WorldRowChange(section: section, key: keyText, value: valueText)
    }
}

extension PendingRow {
    /// The section of the clock's mode, which lives beside the state.
    static let clockSection = "clock"

    /// The clock's mode as a row.
    static func clock(_ mode: MockClock.Mode) -> PendingRow {
        PendingRow(section: clockSection, key: nil, value: mode, removed: false)
    }
}

extension PendingRow {
    /// The rows of one batch as a store takes them: each row once, with its last change (several
    /// transitions in one batch may touch the same row).
    public static func encodedLatest(_ rows: [PendingRow]) throws -> [WorldRowChange] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard rows.count > 1 else { return try rows.map { try $0.encoded(with: encoder) } }
        var seen = Set<Identity>()
        var latest: [PendingRow] = []
        for row in rows.reversed() where seen.insert(Identity(row)).inserted { latest.append(row) }
        return try latest.reversed().map { try $0.encoded(with: encoder) }
    }

    /// The row a change is for, within one batch: its section and key, compared as values (keys of
    /// one section all have one type).
    private struct Identity: Hashable {
        let section: String
        let key: AnyHashable?

        init(_ row: PendingRow) {
            section = row.section
            key = row.key.map { AnyHashable($0) }
        }
    }
}

/// What a server catches up on when it takes a shared world.
public struct SharedChanges: Sendable {
    /// Rows written since the version asked for; a row without a value was removed.
    public let rows: [WorldRowChange]
    /// The world's version now.
    public let version: Int64
    /// Whether `rows` is the whole world (then rows that are not there are gone).
    public let complete: Bool

    public init(rows: [WorldRowChange], version: Int64, complete: Bool) {
        self.rows = rows
        self.version = version
        self.complete = complete
    }
}
