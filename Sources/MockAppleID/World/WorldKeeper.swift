import Foundation

/// Where a world's changes go once made, and what a request waits on before it answers: the one seam
/// between the ``World`` and its persistence. Three keep a world: in memory only (``MemoryKeeper``), in
/// a state file (``FileKeeper``), and in a store several servers share (``SharedKeeper``). The world
/// hands a keeper the rows each transition changed, under its lock, in order; the keeper owns the
/// "saved before answering" rule.
protocol WorldKeeper: Sendable {
    /// Whether the world must work out the rows each transition changed (none does without a store).
    var keepsChanges: Bool { get }
    /// The lease on sending notifications the shared store grants, when several servers share it.
    var notificationLease: (any NotificationLease)? { get }

    /// Takes the rows a transition changed (`replacingAll`: the whole state, replacing what is kept).
    /// Called under the world's lock, so it never blocks. Returns true when the rows wait for a hold
    /// of a shared world that nothing has asked for yet: the world then holds itself once more.
    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool

    /// A request is under way that will wait (``waitUntilSaved(_:)``) before it answers.
    func beginRequest() async throws(StateStoreError) -> SaveTicket
    /// Returns once every change the request could have made is saved.
    func waitUntilSaved(_ ticket: SaveTicket) async throws(StateStoreError)
    /// The request answered (or ended early).
    func requestEnded(_ ticket: SaveTicket)

    /// Runs `body` while this server holds the world (a shared world: caught up first, its changes
    /// written before this returns); otherwise simply runs it.
    func hold<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T
    /// Returns once every change made so far is saved.
    func waitUntilSaved() async throws(StateStoreError)
    /// Saves what is queued, then keeps nothing more; throws when a write failed.
    func close() async throws(StateStoreError)
}

/// What a request waits on before it answers: its keeper, and its place in a hold of a shared world.
struct SaveTicket: Sendable {
    let keeper: any WorldKeeper
    let member: SharedWorldAccess.Member?
}

/// A world kept in memory only: nothing to save, nothing to wait for.
struct MemoryKeeper: WorldKeeper {
    var keepsChanges: Bool { false }
    var notificationLease: (any NotificationLease)? { nil }
    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool { false }
    func beginRequest() -> SaveTicket { SaveTicket(keeper: self, member: nil) }
    func waitUntilSaved(_ ticket: SaveTicket) {}
    func requestEnded(_ ticket: SaveTicket) {}
    func hold<T: Sendable>(_ body: () -> T) -> T { body() }
    func waitUntilSaved() {}
    func close() {}
}

/// A world kept in a state file: ``StateWriter`` writes the rows in order, off the world's lock, and a
/// request waits for the writes of everything queued before it answers.
struct FileKeeper: WorldKeeper {
    let writer: StateWriter

    var keepsChanges: Bool { true }
    var notificationLease: (any NotificationLease)? { nil }

    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool {
        writer.enqueue(rows, replacingAll: replacingAll)
        return false
    }

    func beginRequest() -> SaveTicket {
        writer.requestStarted()
        return SaveTicket(keeper: self, member: nil)
    }

    func waitUntilSaved(_ ticket: SaveTicket) async throws(StateStoreError) { try await writer.waitUntilSaved() }
    func requestEnded(_ ticket: SaveTicket) { writer.requestEnded() }
    func hold<T: Sendable>(_ body: () -> T) -> T { body() }
    func waitUntilSaved() async throws(StateStoreError) { try await writer.waitUntilSaved() }
    func close() async throws(StateStoreError) { try await writer.close() }
}

/// A world several servers share through a ``SharedWorldStore``: a request runs inside a hold of the
/// world (``SharedWorldAccess``), caught up first on what the others wrote, and answers once the hold
/// has written its changes.
struct SharedKeeper: WorldKeeper {
    let access: SharedWorldAccess
    let notificationLease: (any NotificationLease)?
    /// Applies what the store returned when a hold opens (the world's catch-up).
    let catchUp: @Sendable (SharedChanges) throws(StateStoreError) -> Void

    var keepsChanges: Bool { true }

    func keep(_ rows: [PendingRow], replacingAll: Bool) -> Bool {
        guard !rows.isEmpty || replacingAll else { return false }
        return access.enqueue(rows, replacingAll: replacingAll)
    }

    func beginRequest() async throws(StateStoreError) -> SaveTicket {
        SaveTicket(keeper: self, member: try await access.enter(catchUp: catchUp))
    }

    func waitUntilSaved(_ ticket: SaveTicket) async throws(StateStoreError) {
        if let member = ticket.member { try await access.leave(member) }
    }

    func requestEnded(_ ticket: SaveTicket) {
        if let member = ticket.member { access.leaveWithoutWaiting(member) }
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
}
