import Foundation

/// Keeping the world between runs: a ``WorldStore`` (the state file of `serve --state`) holds every
/// change, and the next start restores it.
extension AppleIDProvider {
    /// Keeps the world in `store` from now on. When the store holds a world of this scenario, it
    /// replaces the scenario's start: personas, consents, codes and tokens, relay mail, notification
    /// deliveries (pending ones are scheduled again), keys, faults, the clock and the loaded timeline's
    /// progress. An empty store is filled with the world as it is before this returns. Call it once,
    /// before serving requests. Returns whether a world was restored.
    @discardableResult
    public func keepState(in store: any WorldStore) async throws(StateStoreError) -> Bool {
        guard let sideRows = try await world.attach(store, scenario: scenario.name, sideSections: [TimelinePlayer.section]) else {
            timeline.saveProgress()
            try await world.waitUntilSaved()
            return false
        }
        if let row = sideRows.first(where: { $0.section == TimelinePlayer.section }) {
            do throws(StateStoreError) { try timeline.restore(row, provider: self) } catch {
                throw StateStoreError("\(store.name): \(error.message)")
            }
        } else {
            timeline.saveProgress()
        }
        resumeNotifications()
        return true
    }

    /// Keeps the world in `store`, shared with every server that uses it (``SharedWorldStore``): from
    /// now on each request runs while this server holds the world, caught up on the others' changes,
    /// and answers once its own are written. A store that holds no world yet gets this one. The
    /// loaded timeline's progress stays with this server. Call it once, before serving requests.
    /// Returns whether the store held a world.
    @discardableResult
    public func shareState(in store: any SharedWorldStore & NotificationLease) async throws(StateStoreError) -> Bool {
        try await world.attach(shared: store, scenario: scenario.name)
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
