/// The lease on sending a shared world's notifications: of the servers sharing a store, one sends them, so that
/// each event is delivered once. A store several servers share grants it (`MockAppleIDStorage`'s `shareState(in:)` takes a
/// store that is both), and only the notification sender asks for it.
public protocol NotificationLease: Sendable {
    /// What to call the store in messages (its address, without the password).
    var name: String { get }

    /// Returns once this server is the one, of those sharing the store, that sends the world's
    /// notifications (at once when no other is; when the one that is dies, the next takes over), or
    /// when the task is cancelled.
    func lead() async

    /// Whether this server still sends the notifications (it stops when it loses the store).
    func stillLeading() async -> Bool

    /// While this server leads: calls `wake` once it watches, then whenever a server sharing the store
    /// writes rows that may give the sender work (``WorldRowChange/wakesNotificationSender``). Returns
    /// when this server no longer leads (its connection ended), or when the task is cancelled.
    func watchSenderWork(_ wake: @escaping @Sendable () -> Void) async
}

extension NotificationLease {
    /// A store that cannot announce writes: wakes the sender four times a second while the task runs.
    public func watchSenderWork(_ wake: @escaping @Sendable () -> Void) async {
        await repeatUntilCancelled(pausing: .milliseconds(250)) { wake() }
    }
}

extension WorldRowChange {
    /// Whether the row may give the notification sender work: the outbox or one of its deliveries (one
    /// queued, retried or given up), or the clock (a retry comes due by it).
    public var wakesNotificationSender: Bool { WorldState.senderRowNames.contains(section) }
}

extension WorldState {
    /// The rows of the outbox and its deliveries, and the clock's.
    static let senderRowNames = Set(section(.outbox).rowNames + [PendingRow.clockSection])
}
