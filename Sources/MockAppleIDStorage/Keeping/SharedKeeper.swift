import MockAppleID

/// A world several servers share through a ``SharedWorldStore``: a request runs inside a hold of the
/// world (``SharedWorldAccess``), caught up first on what the others wrote, and answers once the hold
/// has written its changes.
struct SharedKeeper: WorldKeeper {
    let access: SharedWorldAccess
    let notificationLease: (any NotificationLease)?
    /// The world it keeps, to catch up when a hold opens.
    let world: KeptWorld

    var keepsChanges: Bool { true }

    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool {
        guard !rows.isEmpty || replacingAll else { return false }
        return access.enqueue(rows, replacingAll: replacingAll)
    }

    /// The timeline's progress stays with this server: nothing beside the world is shared.
    func keepBeside(_ row: PendingRow) {}

    func beginRequest() async throws(StateStoreError) -> any SaveTicket {
        Ticket(access: access, member: try await access.enter(catchUp: catchUp))
    }

    func hold<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T {
        // A hold asked for inside one is that one.
        guard SharedWorldAccess.Member.current == nil else { return body() }
        let member = try await access.enter(catchUp: catchUp)
        let result = SharedWorldAccess.Member.$current.withValue(member) { body() }
        try await access.leave(member)
        return result
    }

    func waitUntilSaved() async throws(StateStoreError) {
        // Inside a hold, the hold's end is the save: waiting for it here would wait for ever.
        guard SharedWorldAccess.Member.current == nil else { return }
        _ = try await hold {}
    }

    func close() async throws(StateStoreError) {
        var flushFailure: StateStoreError?
        do throws(StateStoreError) { _ = try await hold {} } catch { flushFailure = error }
        await access.close()
        if let flushFailure { throw flushFailure }
    }

    /// Holds the world once, to take the one the store holds (state and clock) or, when it holds none, to fill
    /// it with this one. Returns whether the store held a world.
    func takeWorld() async throws(StateStoreError) -> Bool {
        var held = false
        let member = try await access.enter { changes throws(StateStoreError) in
            held = !changes.rows.isEmpty
            try catchUp(changes)
        }
        try await access.leave(member)
        return held
    }

    private func catchUp(_ changes: SharedChanges) throws(StateStoreError) {
        try world.catchUp(changes, storeName: access.store.name)
    }

    /// A request's place in a hold: it answers once the hold's changes are written.
    private struct Ticket: SaveTicket {
        let access: SharedWorldAccess
        let member: SharedWorldAccess.Member
        func waitUntilSaved() async throws(StateStoreError) { try await access.leave(member) }
        func ended() { access.leaveWithoutWaiting(member) }
    }
}
