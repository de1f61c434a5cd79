/// An ordered list of entries with ids that can remember which entries changed, so that a state store
/// writes one row per changed entry rather than the whole list (relay mail, notification deliveries).
///
/// Each entry has a position, increasing in the order entries were appended, which its stored row
/// carries so the order comes back after a restart. Tracking is off until ``setTracking(_:)``. It
/// encodes as the plain array, so snapshots keep their format.
struct TrackedList<Entry: Identifiable & Codable & Sendable>: Sendable where Entry.ID == String {
    /// An entry as a store keeps it: its place in the list and the entry.
    struct Stored: Codable, Sendable {
        let position: Int
        let entry: Entry
    }

    private(set) var entries: [Entry] = []
    private var positions: [Int] = []
    private var nextPosition = 0
    private var changedIDs: Set<String> = []
    private var isTracking = false

    init() {}

    var count: Int { entries.count }
    var indices: Range<Int> { entries.indices }

    subscript(index: Int) -> Entry {
        get { entries[index] }
        set {
            entries[index] = newValue
            track(newValue.id)
        }
    }

    func firstIndex(where predicate: (Entry) -> Bool) -> Int? { entries.firstIndex(where: predicate) }

    mutating func append(_ entry: Entry) {
        entries.append(entry)
        positions.append(nextPosition)
        nextPosition += 1
        track(entry.id)
    }

    @discardableResult
    mutating func remove(at index: Int) -> Entry {
        positions.remove(at: index)
        let entry = entries.remove(at: index)
        track(entry.id)
        return entry
    }

    mutating func removeAll() {
        if isTracking { changedIDs.formUnion(entries.map(\.id)) }
        entries.removeAll()
        positions.removeAll()
    }

    /// Remembers changed entries from now on, or stops and forgets them.
    mutating func setTracking(_ on: Bool) {
        isTracking = on
        if !on { changedIDs = [] }
    }

    /// Whether any entry changed since the last ``takeChangedEntries()``.
    var hasChanges: Bool { !changedIDs.isEmpty }

    /// The entries changed since the last call, by id, with what to store (nil: removed); forgets them.
    mutating func takeChangedEntries() -> [(id: String, stored: Stored?)] {
        guard !changedIDs.isEmpty else { return [] }
        defer { changedIDs.removeAll(keepingCapacity: true) }
        var current: [String: Stored] = [:]
        for index in entries.indices where changedIDs.contains(entries[index].id) {
            current[entries[index].id] = Stored(position: positions[index], entry: entries[index])
        }
        return changedIDs.map { ($0, current[$0]) }
    }

    /// Every entry with its position.
    var storedEntries: [Stored] { zip(positions, entries).map { Stored(position: $0, entry: $1) } }

    /// Replaces the entries with stored ones, put in their places, without remembering them as changes.
    mutating func restore(_ stored: [Stored]) {
        let ordered = stored.sorted { $0.position < $1.position }
        entries = ordered.map(\.entry)
        positions = ordered.map(\.position)
        nextPosition = (positions.last ?? -1) + 1
    }

    /// Puts one stored entry back in its place, or removes it (nil), without remembering a change
    /// (an entry another server wrote to a shared store).
    mutating func restore(_ stored: Stored?, id: String) {
        if let index = entries.firstIndex(where: { $0.id == id }) {
            entries.remove(at: index)
            positions.remove(at: index)
        }
        guard let stored else { return }
        let index = positions.firstIndex { $0 > stored.position } ?? positions.endIndex
        entries.insert(stored.entry, at: index)
        positions.insert(stored.position, at: index)
        nextPosition = max(nextPosition, stored.position + 1)
    }

    private mutating func track(_ id: String) {
        if isTracking { changedIDs.insert(id) }
    }
}

extension TrackedList: Codable {
    init(from decoder: any Decoder) throws {
        entries = try decoder.singleValueContainer().decode([Entry].self)
        positions = Array(entries.indices)
        nextPosition = entries.count
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}
