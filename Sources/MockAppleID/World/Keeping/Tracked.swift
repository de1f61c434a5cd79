/// A whole section of a ``WorldState`` that can remember whether it was changed, so that a store
/// writes its row again only then (see ``StateSection``).
///
/// Tracking is off until ``setTracking(_:)`` (a world kept in memory only pays a flag test per
/// write). Changes made in place (`state.personas.append(…)`) are counted without copying the value.
/// Public only because public properties of the state are wrapped in it; nothing else of it is.
@propertyWrapper
public struct Tracked<Value: Sendable>: Sendable {
    private var value: Value
    private var isTracking = false
    /// Whether the value was changed since tracking started or since the last ``takeChange()``.
    private(set) var changed = false

    public init(wrappedValue: Value) { value = wrappedValue }

    public var wrappedValue: Value {
        get { value }
        _modify {
            defer { if isTracking { changed = true } }
            yield &value
        }
    }

    /// Remembers changes from now on, or stops; either way nothing counts as changed yet.
    mutating func setTracking(_ on: Bool) {
        isTracking = on
        changed = false
    }

    /// Whether the value changed since the last call; forgets it.
    mutating func takeChange() -> Bool {
        defer { changed = false }
        return changed
    }
}
