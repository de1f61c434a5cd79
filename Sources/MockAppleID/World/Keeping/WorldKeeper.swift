import Foundation

/// Where a world's changes go once made, and what a request waits on before it answers: the one seam
/// between the ``World`` and its persistence. The core keeps a world in memory only (its own keeper);
/// `MockAppleIDStorage` has the keepers of a state file and of a store several servers share, attached with
/// ``AppleIDProvider/keepState(with:restoring:storeName:)`` and ``AppleIDProvider/shareState(with:)``. The
/// world hands a keeper the rows each transition changed, under its lock, in order; the keeper owns the
/// "saved before answering" rule.
public protocol WorldKeeper: Sendable {
    /// Whether the world must work out the rows each transition changed (none does without a store).
    var keepsChanges: Bool { get }
    /// The lease on sending notifications the shared store grants, when several servers share it.
    var notificationLease: (any NotificationLease)? { get }

    /// Takes the rows a transition changed (`replacingAll`: the whole state, replacing what is kept).
    /// Called under the world's lock, so it never blocks. Returns true when the rows wait for a hold
    /// of a shared world that nothing has asked for yet: the world then holds itself once more.
    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool

    /// Takes a row kept beside the world (a timeline's progress, which stays with this server), in order with
    /// the world's changes; a keeper that keeps no such rows ignores it. Called under the world's lock.
    func keepBeside(_ row: PendingRow)

    /// A request is under way that will wait (``SaveTicket/waitUntilSaved()``) before it answers.
    func beginRequest() async throws(StateStoreError) -> any SaveTicket

    /// Runs `body` while this server holds the world (a shared world: caught up first, its changes
    /// written before this returns); otherwise simply runs it.
    func hold<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T
    /// Returns once every change made so far is saved.
    func waitUntilSaved() async throws(StateStoreError)
    /// Saves what is queued, then keeps nothing more; throws when a write failed.
    func close() async throws(StateStoreError)
}

/// What a request waits on before it answers: its place with the keeper it began with (a request that began
/// before the world stopped being kept waits on the closed keeper, and fails rather than pass).
public protocol SaveTicket: Sendable {
    /// Returns once every change the request could have made is saved.
    func waitUntilSaved() async throws(StateStoreError)
    /// The request answered, or ended early.
    func ended()
}

/// A world kept in memory only: nothing to save, nothing to wait for.
struct MemoryKeeper: WorldKeeper, SaveTicket {
    var keepsChanges: Bool { false }
    var notificationLease: (any NotificationLease)? { nil }
    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool { false }
    func keepBeside(_ row: PendingRow) {}
    func beginRequest() -> any SaveTicket { self }
    func hold<T: Sendable>(_ body: () -> T) -> T { body() }
    func waitUntilSaved() {}
    func ended() {}
    func close() {}
}
