import MockAppleID

/// A store that several servers share (PostgreSQL), so that they serve one world.
///
/// One server at a time holds the world: it takes it (``acquire(after:scenario:)``), which waits while
/// another server holds it and returns what the others wrote since this server last saw it; it changes
/// its copy in memory; and it gives the world back with its changes (``release(writing:replacingAll:)``),
/// which writes them in one transaction. So a code redeemed at one server is gone at every other before
/// the first answers, and every server's changes apply to the latest state.
public protocol SharedWorldStore: Sendable {
    /// What to call the store in messages (its address, without the password).
    var name: String { get }

    /// Waits until this server alone holds the world, then returns the rows written after `version`
    /// (every row when `version` is negative or older than the store remembers removals for).
    /// A store that holds no world yet belongs to `scenario` from now on; one of another scenario throws.
    func acquire(after version: Int64, scenario: String) async throws(StateStoreError) -> SharedChanges

    /// Writes `changes` (after removing every row, with `replacingAll`) and gives the world back; returns
    /// the world's version after the write. On failure nothing is written and the world is given back.
    func release(writing changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) -> Int64

    /// Why a hold would be refused now without asking the database (it could not be reached a moment ago and
    /// is being tried again); nil when a hold may be tried. Requests are then refused at once rather than
    /// waiting behind the attempt.
    var unavailable: StateStoreError? { get }
}

extension SharedWorldStore {
    /// A store that is not known to be down.
    public var unavailable: StateStoreError? { nil }
}
