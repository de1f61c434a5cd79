import Foundation

/// Keeping the world between runs: a ``WorldKeeper`` (`MockAppleIDStorage`'s, for the state file of `serve --state`
/// and the database of `serve --database-url`) holds every change, and the next start restores it.
extension AppleIDProvider {
    /// Keeps the world with `keeper` from now on, restoring it from `rows`, what the keeper's store holds. When
    /// they hold a world of this scenario, it replaces the scenario's start: personas, consents, codes and tokens,
    /// relay mail, notification deliveries (pending ones are scheduled again), keys, faults, the clock and the
    /// loaded timeline's progress. No rows: the keeper is given the world as it is before this returns. Call it
    /// once, before serving requests; `storeName` names the store in errors. Returns whether a world was restored.
    @discardableResult
    public func keepState(with keeper: any WorldKeeper, restoring rows: [WorldRow], storeName: String) async throws(StateStoreError) -> Bool {
        let sideRows = try world.attach(keeper, restoring: rows, sideSections: [TimelinePlayer.section], storeName: storeName)
        do throws(StateStoreError) {
            return try await restoreBeside(sideRows, storeName: storeName)
        } catch {
            // Not kept after all: the keeper is closed and the world goes on in memory.
            try? await world.detach()
            throw error
        }
    }

    /// Once the world is attached: saves it as it is (and the timeline's progress) when there was nothing to restore,
    /// or restores the timeline's progress kept beside it. Returns whether a world was restored.
    private func restoreBeside(_ sideRows: [WorldRow]?, storeName: String) async throws(StateStoreError) -> Bool {
        try await world.waitUntilSaved()
        guard let sideRows else {
            timeline.saveProgress()
            try await world.waitUntilSaved()
            return false
        }
        if let row = sideRows.first(where: { $0.section == TimelinePlayer.section }) {
            do throws(StateStoreError) { try timeline.restore(row, provider: self) } catch {
                throw StateStoreError("\(storeName): \(error.message)")
            }
        } else {
            timeline.saveProgress()
        }
        resumeNotifications()
        return true
    }

    /// Keeps the world, shared with other servers, with the keeper `make` returns (given the world as a keeper sees
    /// it, to catch it up whenever this server takes it): from now on each request runs while this server holds the
    /// world, caught up on the others' changes, and answers once its own are written. The loaded timeline's progress
    /// stays with this server. Call it once, before serving requests; the keeper then takes the world.
    public func shareState<Keeper: WorldKeeper>(with make: (KeptWorld) -> Keeper) -> Keeper {
        world.attachShared(make)
    }

    /// Notification deliveries that were being sent when their sender stopped (another server sharing
    /// the store, which died) are due again, and every pending one is scheduled on the clock again:
    /// what a server does when it takes over sending.
    public func takeOverNotifications() { resumeNotifications() }

    /// Returns once every change made so far is saved in the store (at once without one). The HTTP
    /// server waits for this before it answers, so a change it acknowledged outlives the process.
    public func waitUntilSaved() async throws(StateStoreError) { try await world.waitUntilSaved() }

    /// Saves what is pending and stops writing to the store; the world goes on in memory only.
    /// Throws when a write failed (then the store lacks changes that were made).
    public func stopKeepingState() async throws(StateStoreError) { try await world.detach() }

    /// The whole world and the clock, `Codable`.
    public func snapshot() -> WorldSnapshot { world.snapshot() }

    /// Replaces the world and the clock's mode with `snapshot`'s.
    public func restore(_ snapshot: WorldSnapshot) {
        world.restore(snapshot)
        timeline.saveProgress()
        resumeNotifications()
    }
}
