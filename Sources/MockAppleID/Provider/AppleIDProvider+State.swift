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

    /// Returns once every change made so far is saved in the store (at once without one). The HTTP
    /// server waits for this before it answers, so a change it acknowledged outlives the process.
    public func waitUntilSaved() async throws(StateStoreError) { try await world.waitUntilSaved() }

    /// Saves what is pending and stops writing to the store; the world goes on in memory only.
    /// Throws when a write failed (then the store lacks changes that were made).
    public func stopKeepingState() async throws(StateStoreError) { try await world.detach() }
}
