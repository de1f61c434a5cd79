/// A dictionary that can remember which keys changed, so a state store writes only those rows.
///
/// Tracking is off until ``setTracking(_:)`` (a world kept in memory only pays a flag test per write);
/// once on, every key set, replaced or removed is remembered until ``takeChangedKeys()``. It encodes
/// exactly as the plain dictionary, so snapshots keep their format.
struct TrackedMap<Key: Hashable & Sendable & Codable, Value: Sendable & Codable>: Sendable {
    private(set) var storage: [Key: Value] = [:]
    private var changedKeys: Set<Key> = []
    private var isTracking = false

    init() {}

    /// The value under `key`. Changed in place (`map[key]?.append(…)`), the dictionary's own value is
    /// changed, not a copy of it.
    subscript(key: Key) -> Value? {
        get { storage[key] }
        set {
            storage[key] = newValue
            if isTracking { changedKeys.insert(key) }
        }
        _modify {
            // `map[key]?.change()` on an absent key changes nothing, and is not a change to save.
            let wasHeld = isTracking && storage.keys.contains(key)
            defer { if isTracking, wasHeld || storage.keys.contains(key) { changedKeys.insert(key) } }
            yield &storage[key]
        }
    }

    /// The value under `key`, or `defaultValue`; changed in place like ``subscript(_:)``.
    subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { storage[key, default: defaultValue()] }
        set {
            storage[key] = newValue
            if isTracking { changedKeys.insert(key) }
        }
        _modify {
            if isTracking { changedKeys.insert(key) }
            yield &storage[key, default: defaultValue()]
        }
    }

    /// The value held under a key with exactly `key`'s bytes (see ``Swift/Dictionary/subscript(exactly:)``).
    subscript(exactly key: String) -> Value? where Key == String { storage[exactly: key] }

    var count: Int { storage.count }
    var keys: Dictionary<Key, Value>.Keys { storage.keys }
    var values: Dictionary<Key, Value>.Values { storage.values }

    /// Removes every entry `shouldRemove` picks.
    mutating func removeAll(where shouldRemove: (Key, Value) -> Bool) {
        let removed = storage.filter { shouldRemove($0.key, $0.value) }.keys
        guard !removed.isEmpty else { return }
        for key in removed { storage[key] = nil }
        if isTracking { changedKeys.formUnion(removed) }
    }

    /// Remembers changed keys from now on, or stops and forgets them.
    mutating func setTracking(_ on: Bool) {
        isTracking = on
        if !on { changedKeys = [] }
    }

    /// The keys changed since the last call, with their values now (nil: removed); forgets them.
    mutating func takeChangedKeys() -> [(key: Key, value: Value?)] {
        guard !changedKeys.isEmpty else { return [] }
        defer { changedKeys.removeAll(keepingCapacity: true) }
        return changedKeys.map { ($0, storage[$0]) }
    }

    /// Puts an entry back as stored, or removes it (nil), without remembering it as a change.
    mutating func restore(_ value: Value?, forKey key: Key) { storage[key] = value }
}

extension TrackedMap: Codable {
    init(from decoder: any Decoder) throws {
        storage = try decoder.singleValueContainer().decode([Key: Value].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(storage)
    }
}
