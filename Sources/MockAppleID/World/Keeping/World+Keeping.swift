import Foundation

/// Keeping the world in a store: attaching a keeper (``WorldKeeper``: a state file's, a shared database's),
/// catching up on what other servers wrote, and the saved-before-answering rule requests follow.
extension World {
    // MARK: Attaching a keeper

    /// Keeps the world with `keeper` from now on, restoring it from `rows` (what the store holds): rows that
    /// hold a world replace this one (state and clock); none fill the keeper with this world. Call it before
    /// serving. Returns the rows of `sideSections` (kept beside the world by others, see ``save(_:section:)``),
    /// or nil when there were no rows.
    func attach(_ keeper: any WorldKeeper, restoring rows: [WorldRow], sideSections: Set<String>, storeName: String)
        throws(StateStoreError) -> [WorldRow]? {
        let stored = try decode(rows, sideSections: sideSections, storeName: storeName)
        guarded.withLock { guarded in
            if let clockMode = stored.clock { clock.reset(to: clockMode) }
            guarded.keeper = keeper
            keptInStore.store(true, ordering: .relaxed)
            if rows.isEmpty {
                replace(&guarded, with: guarded.state)
            } else {
                install(stored.state, &guarded)
            }
        }
        return rows.isEmpty ? nil : stored.side
    }

    /// Saves a value kept beside the world (a timeline's progress) as the one row of `section`, in
    /// order with the world's changes, when the keeper keeps such rows.
    func save(_ value: some Encodable & Sendable, section: String) {
        guarded.withLock { guarded in
            guarded.keeper.keepBeside(PendingRow(section: section, key: nil, value: value, removed: false))
        }
    }

    /// Keeps the world, shared with other servers, with the keeper `make` returns from now on; the keeper catches
    /// the world up (``KeptWorld/catchUp(_:storeName:)``) whenever this server takes it. Call it before serving.
    func attachShared<Keeper: WorldKeeper>(_ make: (KeptWorld) -> Keeper) -> Keeper {
        let keeper = make(KeptWorld(world: self))
        shared.store(true, ordering: .relaxed)
        keptInStore.store(true, ordering: .relaxed)
        guarded.withLock { guarded in
            guarded.keeper = keeper
            guarded.state.setTracking(true)
            guarded.savedClock = clock.currentMode
        }
        return keeper
    }

    /// Applies what other servers wrote since this copy last caught up; a complete set replaces the
    /// state (an empty one is a new store, which gets this world).
    fileprivate func catchUp(_ changes: SharedChanges, storeName: String) throws(StateStoreError) {
        if changes.complete {
            let rows = changes.rows.compactMap { change in change.value.map { WorldRow(section: change.section, key: change.key, value: $0) } }
            guard !rows.isEmpty else {
                guarded.withLock { replace(&$0, with: $0.state) }
                return
            }
            let stored = try decode(rows, sideSections: [], storeName: storeName)
            guarded.withLock { guarded in
                if let clockMode = stored.clock { clock.adopt(clockMode) }
                install(stored.state, &guarded)
            }
            return
        }
        guard !changes.rows.isEmpty else { return }
        let clockRow = changes.rows.last { $0.section == PendingRow.clockSection }?.value
        let clockMode = try clockRow.map { value throws(StateStoreError) in try decodeClock(value, storeName: storeName) }
        try guarded.withLock { (guarded: inout Guarded) throws(StateStoreError) in
            guarded.state.setTracking(false)
            defer { guarded.state.setTracking(true) }
            do throws(StateStoreError) { try guarded.state.apply(changes.rows, decoder: JSONDecoder()) } catch {
                throw StateStoreError("\(storeName): \(error.message)")
            }
            if changes.rows.contains(where: { $0.section == WorldState.CodingKeys.keys.rawValue }) {
                keysGeneration.add(1, ordering: .relaxed)
            }
            faultsQueued.store(!guarded.state.faults.faults.isEmpty, ordering: .relaxed)
            if let clockMode { clock.adopt(clockMode) }
            guarded.savedClock = clock.currentMode
        }
    }

    /// The lease on sending notifications of the store this world is shared through with other servers, if it is.
    public var notificationLease: (any NotificationLease)? { guarded.withLock { $0.keeper.notificationLease } }

    /// Whether the world is shared with other servers (without taking the lock).
    public var isShared: Bool { shared.load(ordering: .relaxed) }

    // MARK: Reading a store's rows

    /// A stored world: its state (on top of the scenario's start), its clock's mode, and the rows of `sideSections`.
    private func decode(_ rows: [WorldRow], sideSections: Set<String>, storeName: String) throws(StateStoreError)
        -> (state: WorldState, clock: MockClock.Mode?, side: [WorldRow]) {
        var restored = initialState
        var clockMode: MockClock.Mode?
        var sideRows: [WorldRow] = []
        var stateRows: [WorldRow] = []
        for row in rows {
            if sideSections.contains(row.section) {
                sideRows.append(row)
            } else if row.section == PendingRow.clockSection {
                clockMode = try decodeClock(row.value, storeName: storeName)
            } else {
                stateRows.append(row)
            }
        }
        do throws(StateStoreError) { try restored.restore(stateRows, decoder: JSONDecoder()) } catch {
            throw StateStoreError("\(storeName): \(error.message)")
        }
        return (restored, clockMode, sideRows)
    }

    private func decodeClock(_ value: String, storeName: String) throws(StateStoreError) -> MockClock.Mode {
        do { return try JSONDecoder().decode(MockClock.Mode.self, from: Data(value.utf8)) } catch {
            throw StateStoreError("\(storeName): the clock row cannot be read: \(error)")
        }
    }

    /// Makes a restored state the world's, tracking changes from now on.
    private func install(_ restored: WorldState, _ guarded: inout Guarded) {
        guarded.state = restored
        keysGeneration.add(1, ordering: .relaxed)
        notificationsQueued.ring()
        faultsQueued.store(!restored.faults.faults.isEmpty, ordering: .relaxed)
        guarded.state.setTracking(true)
        guarded.savedClock = clock.currentMode
        // The domains of addresses a store written before they were recorded holds: recorded now, as changes, so
        // that the store keeps them (a later `relay.addressDomain` does not move them).
        guarded.state.recordUnrecordedRelayDomains()
        if guarded.keeper.keepsChanges { queueChanges(&guarded) }
    }

    // MARK: Saved before answering

    /// The keeper the world's changes go to now.
    var keeper: any WorldKeeper { guarded.withLock { $0.keeper } }

    /// Runs `body` while this server holds the world, when the world is shared with other servers
    /// (caught up first, and its changes written before this returns); otherwise simply runs it.
    /// Work that is not a request, such as scheduled work coming due, runs in one.
    func hold<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T {
        guard isShared else { return body() }
        return try await keeper.hold(body)
    }

    /// A request is under way that will wait (``SaveTicket/waitUntilSaved()``) before it answers, as the HTTP
    /// server's requests do: the keeper's ticket (with a shared store, this waits until the server holds the world,
    /// which may throw). End it with ``SaveTicket/ended()``.
    func beginRequest() async throws(StateStoreError) -> any SaveTicket {
        guard isKeptInStore else { return MemoryKeeper() }
        return try await keeper.beginRequest()
    }

    /// Returns once every change made so far is saved (at once when the world is not kept in a store;
    /// a shared world is held once more to write what is pending).
    public func waitUntilSaved() async throws(StateStoreError) {
        try await keeper.waitUntilSaved()
    }

    /// Saves what is queued and stops saving; the world goes on in memory only. A request that
    /// started before holds the closed keeper (its ``SaveTicket``), so its wait for a change made too late
    /// fails instead of passing. Throws when a write failed.
    func detach() async throws(StateStoreError) {
        let keeper = self.keeper
        guard keeper.keepsChanges else { return }
        defer {
            guarded.withLock { guarded in
                guarded.keeper = MemoryKeeper()
                guarded.state.setTracking(false)
            }
            shared.store(false, ordering: .relaxed)
            keptInStore.store(false, ordering: .relaxed)
        }
        try await keeper.close()
    }
}

/// The world a keeper keeps, as the keeper sees it: what it may do to the world (catch it up on what other servers
/// wrote), and nothing more. A keeper is given one when it is attached (``AppleIDProvider/shareState(with:)``), and
/// uses it only while the world uses the keeper: the world does not outlive its provider.
public struct KeptWorld: Sendable {
    /// The world owns its keeper, which holds this: unowned, so that neither keeps the other alive.
    unowned let world: World

    /// Applies what other servers wrote to the store since this copy last caught up (`changes.complete`: the
    /// whole world, an empty one meaning a new store, which gets this world); `storeName` names the store in errors.
    /// Throws, changing nothing, once the world is no longer shared (its keeper was closed).
    public func catchUp(_ changes: SharedChanges, storeName: String) throws(StateStoreError) {
        guard world.isShared else { throw StateStoreError("\(storeName): the world is no longer kept there") }
        try world.catchUp(changes, storeName: storeName)
    }
}
