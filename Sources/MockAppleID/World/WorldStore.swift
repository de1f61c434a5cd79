import Foundation

/// Where a world is kept between runs: a state file, a database. A ``World`` attached to one (see
/// ``AppleIDProvider/keepState(in:)``) writes each change as a few rows and reads them all back at the next start.
public protocol WorldStore: Sendable {
    /// What to call the store in messages (a file's path).
    var name: String { get }

    /// Every row kept for `scenario`; none for a new store, which from then on belongs to `scenario`.
    /// Throws when the store belongs to another scenario or cannot be read.
    func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow]

    /// Writes `changes` in one atomic step: each row replaces the row with its section and key, and a
    /// change without a value removes it. With `replacingAll`, every other row is removed first.
    func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError)
}

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

/// A change taken from the state under its lock, encoded to JSON later, off the lock.
struct PendingRow: Sendable {
    let section: String
    /// Nil for a whole section.
    let key: (any Encodable & Hashable & Sendable)?
    /// Nil when the entry was removed.
    let value: (any Encodable & Sendable)?
    let removed: Bool

    init(_ section: WorldState.CodingKeys, key: (any Encodable & Hashable & Sendable)? = nil, value: (any Encodable & Sendable)?) {
        self.init(section: section.rawValue, key: key, value: value, removed: key != nil && value == nil)
    }

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
