import MockAppleID

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

    func keepBeside(_ row: PendingRow) { writer.enqueue([row]) }

    func beginRequest() -> any SaveTicket {
        writer.requestStarted()
        return Ticket(writer: writer)
    }

    func hold<T: Sendable>(_ body: () -> T) -> T { body() }
    func waitUntilSaved() async throws(StateStoreError) { try await writer.waitUntilSaved() }
    func close() async throws(StateStoreError) { try await writer.close() }

    /// A request's wait: for the writes of everything queued before it answers.
    private struct Ticket: SaveTicket {
        let writer: StateWriter
        func waitUntilSaved() async throws(StateStoreError) { try await writer.waitUntilSaved() }
        func ended() { writer.requestEnded() }
    }
}
