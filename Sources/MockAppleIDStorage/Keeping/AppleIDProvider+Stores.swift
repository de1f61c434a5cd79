import MockAppleID

/// Keeping a provider's world in a store: a ``WorldStore`` (the state file of `serve --state`) holds every change
/// and the next start restores it; a ``SharedWorldStore`` (PostgreSQL, `serve --database-url`) is one world for
/// several servers.
extension AppleIDProvider {
    /// Keeps the world in `store` from now on. When the store holds a world of this scenario, it replaces the
    /// scenario's start (see the core's `keepState(with:restoring:storeName:)`); an empty store is filled with
    /// the world as it is before this returns. Call it once, before serving requests. Returns whether a world was
    /// restored.
    @discardableResult
    public func keepState(in store: any WorldStore) async throws(StateStoreError) -> Bool {
        let rows = try await store.loadRows(scenario: scenario.name)
        let writer = StateWriter(store: store)
        writer.start()
        do throws(StateStoreError) {
            return try await keepState(with: FileKeeper(writer: writer), restoring: rows, storeName: store.name)
        } catch {
            try? await writer.close()  // when the failure came before the keeper was attached
            throw error
        }
    }

    /// Keeps the world in `store`, shared with every server that uses it (``SharedWorldStore``): from now on each
    /// request runs while this server holds the world, caught up on the others' changes, and answers once its own
    /// are written. A store that holds no world yet gets this one. The loaded timeline's progress stays with this
    /// server. Call it once, before serving requests. Returns whether the store held a world.
    @discardableResult
    public func shareState(in store: any SharedWorldStore & NotificationLease) async throws(StateStoreError) -> Bool {
        let access = SharedWorldAccess(store: store, scenario: scenario.name)
        let keeper = shareState { world in SharedKeeper(access: access, notificationLease: store, world: world) }
        return try await keeper.takeWorld()
    }
}
