import Logging
import PostgresNIO
import Synchronization

/// Listens for one channel's `NOTIFY`, as a server sharing a database does to hear of the others' writes.
/// Its caller listens again when listening ends; a failure is logged once per run of failures.
final class ChannelListener: Sendable {
    /// The channel listened on.
    let channel: String
    /// What the notifications tell of, for the log ("other servers' deliveries").
    private let subject: String
    private let logger: Logger
    /// Whether the last failure was logged (none since).
    private let failureLogged = Atomic<Bool>(false)

    init(channel: String, subject: String, logger: Logger) {
        self.channel = channel
        self.subject = subject
        self.logger = logger
    }

    /// Listens on `connection` until it ends or the task is cancelled: calls `started` once it listens,
    /// then `received` with each notification's payload. `storeName` names the database in the log.
    func listen(on connection: PostgresConnection, storeName: String, started: () -> Void, received: (String) -> Void) async {
        do {
            try await connection.listen(on: channel) { notifications in
                failureLogged.store(false, ordering: .relaxed)
                started()
                for try await notification in notifications { received(notification.payload) }
            }
        } catch {
            if !Task.isCancelled { stopped(storeName: storeName, because: PostgresStore.describe(error)) }
        }
    }

    /// Says in the log why listening stopped, once per run of failures.
    func stopped(storeName: String, because reason: String) {
        if !failureLogged.exchange(true, ordering: .relaxed) {
            logger.notice("\(storeName): stopped listening for \(subject): \(reason)")
        }
    }
}
