/// A store that several servers share (PostgreSQL), so that they serve one world.
///
/// One server at a time holds the world: it takes it (``acquire(after:scenario:)``), which waits while
/// another server holds it and returns what the others wrote since this server last saw it; it changes
/// its copy in memory; and it gives the world back with its changes (``release(writing:replacingAll:)``),
/// which writes them in one transaction. So a code redeemed at one server is gone at every other before
/// the first answers, and every server's changes apply to the latest state.
public protocol SharedWorldStore: Sendable {
    /// What to call the store in messages (its address, without the password).
    var name: String { get }

    /// Waits until this server alone holds the world, then returns the rows written after `version`
    /// (every row when `version` is negative or older than the store remembers removals for).
    /// A store that holds no world yet belongs to `scenario` from now on; one of another scenario throws.
    func acquire(after version: Int64, scenario: String) async throws(StateStoreError) -> SharedChanges

    /// Writes `changes` (after removing every row, with `replacingAll`) and gives the world back; returns
    /// the world's version after the write. On failure nothing is written and the world is given back.
    func release(writing changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) -> Int64

    /// Why a hold would be refused now without asking the database (it could not be reached a moment ago and
    /// is being tried again); nil when a hold may be tried. Requests are then refused at once rather than
    /// waiting behind the attempt.
    var unavailable: StateStoreError? { get }
}

extension SharedWorldStore {
    /// A store that is not known to be down.
    public var unavailable: StateStoreError? { nil }
}

/// The lease on sending a shared world's notifications: of the servers sharing a store, one sends them, so that
/// each event is delivered once. A store several servers share grants it (``AppleIDProvider/shareState(in:)`` takes a
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

/// What a server catches up on when it takes a shared world.
public struct SharedChanges: Sendable {
    /// Rows written since the version asked for; a row without a value was removed.
    public let rows: [WorldRowChange]
    /// The world's version now.
    public let version: Int64
    /// Whether `rows` is the whole world (then rows that are not there are gone).
    public let complete: Bool

    public init(rows: [WorldRowChange], version: Int64, complete: Bool) {
        self.rows = rows
        self.version = version
        self.complete = complete
    }
}
