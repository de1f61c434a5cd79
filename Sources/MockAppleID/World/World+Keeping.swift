import Foundation

/// Keeping the world in a store: attaching a state file or a shared database (``WorldKeeper``), catching
/// up on what other servers wrote, and the saved-before-answering rule requests follow.
extension World {
    // MARK: A state file

    /// Keeps the world in `store` from now on. A store that holds a world replaces this one (state
    /// and clock); an empty one is filled with this world before this returns. Call it before serving.
    /// Returns the rows of `sideSections` (kept beside the world by others, see ``save(_:section:)``),
    /// or nil when the store was empty.
    func attach(_ store: any WorldStore, scenario: String, sideSections: Set<String>) async throws(StateStoreError) -> [WorldRow]? {
        let rows = try await store.loadRows(scenario: scenario)
        let stored = try decode(rows, sideSections: sideSections, storeName: store.name)
        let writer = StateWriter(store: store)
        writer.start()
        guarded.withLock { guarded in
            if let clockMode = stored.clock { clock.reset(to: clockMode) }
            guarded.keeper = FileKeeper(writer: writer)
            keptInStore.store(true, ordering: .relaxed)
            if rows.isEmpty {
                replace(&guarded, with: guarded.state)
            } else {
                install(stored.state, &guarded)
            }
        }
        try await writer.waitUntilSaved()
        return rows.isEmpty ? nil : stored.side
    }

    /// Saves a value kept beside the world (a timeline's progress) as the one row of `section`, in
    /// order with the world's changes; nothing without a store.
    func save(_ value: some Encodable & Sendable, section: String) {
        guarded.withLock { guarded in
            guard let file = guarded.keeper as? FileKeeper else { return }
            _ = file.keep([PendingRow(section: section, key: nil, value: value, removed: false)], replacingAll: false)
        }
    }

    // MARK: A world shared with other servers

    /// Keeps the world in `store`, shared with every server that uses it, from now on: holds it once
    /// to take the world the store holds (state and clock) or, when it holds none, to fill it with
    /// this one. Call it before serving. Returns whether the store held a world.
    func attach(shared store: any SharedWorldStore & NotificationLease, scenario: String) async throws(StateStoreError) -> Bool {
        let access = SharedWorldAccess(store: store, scenario: scenario)
        shared.store(true, ordering: .relaxed)
        keptInStore.store(true, ordering: .relaxed)
        let keeper = SharedKeeper(access: access, notificationLease: store) { [unowned self] changes throws(StateStoreError) in
            try catchUp(changes, storeName: store.name)
        }
        guarded.withLock { guarded in
            guarded.keeper = keeper
            guarded.state.setTracking(true)
            guarded.savedClock = clock.currentMode
        }
        var held = false
        let member = try await access.enter { changes throws(StateStoreError) in
            held = !changes.rows.isEmpty
            try catchUp(changes, storeName: store.name)
        }
        try await access.leave(member)
        return held
    }

    /// Applies what other servers wrote since this copy last caught up; a complete set replaces the
    /// state (an empty one is a new store, which gets this world).
    private func catchUp(_ changes: SharedChanges, storeName: String) throws(StateStoreError) {
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

    /// Requests waiting for the next hold of a shared world (for diagnostics and tests).
    var sharedWaiting: Int { guarded.withLock { ($0.keeper as? SharedKeeper)?.access.waitingCount ?? 0 } }

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

    private var keeper: any WorldKeeper { guarded.withLock { $0.keeper } }

    /// Runs `body` while this server holds the world, when the world is shared with other servers
    /// (caught up first, and its changes written before this returns); otherwise simply runs it.
    /// Work that is not a request, such as scheduled work coming due, runs in one.
    func hold<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T {
        guard isShared else { return body() }
        return try await keeper.hold(body)
    }

    /// A request is under way that will wait (``waitUntilSaved(_:)``) before it answers, as the HTTP
    /// server's requests do. With a state file, waiting requests write the changes themselves while
    /// any is under way, and no other thread is woken for them; with a shared store, this waits until
    /// the server holds the world (see ``SharedWorldStore``), which may throw. End it with
    /// ``requestEnded(_:)``.
    func beginRequest() async throws(StateStoreError) -> SaveTicket {
        guard isKeptInStore else { return SaveTicket(keeper: MemoryKeeper(), member: nil) }
        return try await keeper.beginRequest()
    }

    /// Returns once every change made so far is saved by the keeper the request started with (with a
    /// shared store: once the request's hold of the world ended with its changes written).
    func waitUntilSaved(_ ticket: SaveTicket) async throws(StateStoreError) {
        try await ticket.keeper.waitUntilSaved(ticket)
    }

    /// The request ``beginRequest()`` announced has answered.
    func requestEnded(_ ticket: SaveTicket) {
        ticket.keeper.requestEnded(ticket)
    }

    /// Returns once every change made so far is saved (at once when the world is not kept in a store;
    /// a shared world is held once more to write what is pending).
    public func waitUntilSaved() async throws(StateStoreError) {
        try await keeper.waitUntilSaved()
    }

    /// Saves what is queued and stops saving; the world goes on in memory only. A request that
    /// started before holds the closed keeper (``SaveTicket``), so its wait for a change made too late
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
