/// The tenants one server serves and the names being made or removed, as a value: each change is a method that
/// returns what its caller must do next (the requests to wake), so that one lock, ``TenantRegistry``'s, owns it, and a
/// test drives it without I/O.
struct TenantTable<Entry> {
    /// A request waiting until a name is no longer being made or removed.
    typealias Waiter = CheckedContinuation<Void, Never>

    /// The tenants served, by name.
    private(set) var entries: [String: Entry] = [:]
    /// Names being made or removed (one request at a time each), with the requests waiting for that to end.
    private var busy: [String: [Waiter]] = [:]
    /// Names a request asked for that the shared store did not hold, and when.
    private var misses: [String: ContinuousClock.Instant] = [:]
    /// The most tenants served and being made at once.
    let capacity: Int
    /// The most names remembered as looked up in vain; more empty the memory.
    static var missesKept: Int { 1_000 }

    init(capacity: Int) { self.capacity = capacity }

    /// Marks `name` as being made or removed; refuses a name another request is making or removing, and when
    /// `creating`, a name served already or one more tenant than ``capacity`` (counting those being made).
    mutating func reserve(_ name: String, creating: Bool) throws(TenantError) {
        guard busy[name] == nil else { throw .busy(name) }
        if creating {
            guard entries[name] == nil else { throw .exists(name) }
            guard entries.count + busy.count < capacity else { throw .full(capacity) }
        }
        busy[name] = []
    }

    /// Ends the making or removing of `name`; returns the requests to wake.
    mutating func release(_ name: String) -> [Waiter] { busy.removeValue(forKey: name) ?? [] }

    /// Adds `waiter` to the requests waiting for `name`; false when `name` is not being made or removed (then the
    /// caller resumes it at once).
    mutating func wait(for name: String, _ waiter: Waiter) -> Bool {
        guard busy[name] != nil else { return false }
        busy[name, default: []].append(waiter)
        return true
    }

    /// Serves `entry` as `name`.
    mutating func insert(_ entry: Entry, named name: String) { entries[name] = entry }

    /// Stops serving `name`; returns what it was.
    mutating func remove(_ name: String) -> Entry? { entries.removeValue(forKey: name) }

    /// Stops serving every tenant; returns them.
    mutating func removeAll() -> [Entry] {
        defer { entries.removeAll() }
        return Array(entries.values)
    }

    /// Whether `name` was looked up in vain less than `interval` before `now`.
    func missedRecently(_ name: String, now: ContinuousClock.Instant, within interval: Duration) -> Bool {
        misses[name].map { $0.duration(to: now) < interval } ?? false
    }

    /// Remembers that `name` was looked up in vain at `now`.
    mutating func recordMiss(_ name: String, at now: ContinuousClock.Instant) {
        if misses.count >= Self.missesKept { misses.removeAll() }
        misses[name] = now
    }
}
