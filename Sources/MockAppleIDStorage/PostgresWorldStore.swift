import Foundation
import Logging
import MockAppleID
import PostgresNIO
import Synchronization

/// One world kept in PostgreSQL and shared by every server that uses the same database
/// (`serve --database-url`): see ``SharedWorldStore``.
///
/// The world's rows carry the version that last wrote them, and a removed row stays as a row without a
/// value for a while, so a server catches up by reading the rows newer than its copy. A server holds
/// the world inside one transaction that takes a transaction-scoped advisory lock, so holds of one
/// world never overlap, even across servers; the transaction's commit is the write. Which server sends
/// notifications is decided by a session-scoped advisory lock on a second connection, which PostgreSQL
/// releases when that server's connection ends (it died), so another takes over; that connection
/// listens for the `NOTIFY` a write of deliveries or of the clock sends at its commit.
public final class PostgresWorldStore: SharedWorldStore, NotificationLease {
    public var name: String { tenant.isEmpty ? connector.address.name : "\(connector.address.name) (tenant \(tenant))" }
    /// The world's name in the tables ("" for the server's own world).
    let tenant: String
    private let connector: PostgresConnector
    private let logger: Logger
    /// The connection holds use (one hold at a time) and what the open hold took.
    private struct Holding {
        var connection: PostgresConnection?
        /// A hold's transaction is open on the connection.
        var inTransaction = false
        var version: Int64 = 0
        /// The world's generation (new when a removed tenant is made again under its name).
        var generation: String?
        /// Closed for good: the world is no longer kept here.
        var closed = false
    }

    private let holding = Mutex(Holding())
    private let leading = Mutex<PostgresConnection?>(nil)

    /// How many versions a removed row is remembered for; a server further behind reads the whole world.
    static let removalsKept: Int64 = 256
    /// The channel a write that may give the sender work is announced on.
    static let senderChannel = "mock_appleid_sender"
    /// What this store's writes announce: its own id (so that its sender skips them: it knows of them) and the tenant.
    private let announcement: String
    /// Listens there while this server leads (the sender listens again every second when listening ended).
    private let senderListener: ChannelListener
    /// How long a server that does not lead waits between tries to.
    static let leadRetry = Duration.milliseconds(500)
    /// How long a step on a connection of its own (making or removing a tenant) may wait for the database
    /// before its connection is closed: it may wait for a lock (the server gives up at 10 s) and then run
    /// statements (10 s each at most); this covers a database that stopped answering altogether.
    static let stepDeadline = Duration.seconds(30)
    /// How long one statement of a hold may take (`BEGIN`, the reads of what changed, a write of a few rows,
    /// `COMMIT`), and a ping: they wait for nothing, so a connection that does not answer in time is taken as
    /// lost (a database whose host froze or went away may not say so), rather than holding the world and every
    /// request waiting for it. The connector then backs off as after a failed connect.
    static let statementDeadline = Duration.seconds(3)
    /// How long a hold may wait for another server's to end: the database gives up at 10 s (`lock_timeout`).
    static let lockDeadline = Duration.seconds(11)
    /// How long reading or writing the whole world, or a write of more than ``bulkRows`` rows or ``bulkBytes``
    /// bytes (a relay message is one row of up to 50 MB), may take: the database gives up at 10 s (`statement_timeout`).
    static let bulkDeadline = Duration.seconds(11)
    static let bulkRows = 1000
    static let bulkBytes = 1 << 20

    init(connector: PostgresConnector, tenant: String, logger: Logger) {
        self.connector = connector
        self.tenant = tenant
        self.logger = logger
        announcement = "\(UUID().uuidString) \(tenant)"
        senderListener = ChannelListener(channel: Self.senderChannel, subject: "other servers' deliveries", logger: logger)
    }

    public func acquire(after version: Int64, scenario: String) async throws(StateStoreError) -> SharedChanges {
        try await inTransaction("cannot be read", opening: true) { [self] statements in
            let (tenant, logger) = (tenant, logger)
            // The lock is taken at once when no other server holds the world, and the world read in the same step; a
            // wait for a server that holds it has a longer deadline.
            var (taken, world) = try await statements.run { connection in
                let taken = try await connection.query("SELECT pg_try_advisory_xact_lock(hashtext('mock-appleid world ' || \(tenant)))",
                                                       logger: logger).decode(Bool.self).first { _ in true } == true
                return (taken, taken ? try await Self.world(tenant, on: connection, logger: logger) : nil)
            }
            if !taken {
                world = try await statements.run(within: Self.lockDeadline) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(hashtext('mock-appleid world ' || \(tenant)))", logger: logger)
                    return try await Self.world(tenant, on: connection, logger: logger)
                }
            }
            guard let (owner, current, removalsKeptAfter, generation) = world else {
                // Only this store's first hold makes the world. One that held it before finds it removed, even
                // when a tenant of the same name is being made again (its maker makes the new world).
                guard holding.withLock({ $0.generation == nil }) else { throw StateStoreError("\(name): the world was removed") }
                if !tenant.isEmpty {
                    let kept = try await statements.run { connection in
                        try await connection.query("SELECT 1 FROM mock_appleid_tenants WHERE name = \(tenant)", logger: logger)
                            .decode(Int.self).first { _ in true }
                    }
                    guard kept != nil else { throw StateStoreError("\(name): tenant \(tenant) was removed") }
                }
                let generation = try await statements.run { connection in
                    try await connection.query("""
                        INSERT INTO mock_appleid_worlds (tenant, scenario, version, removals_kept_after) VALUES (\(tenant), \(scenario), 0, 0)
                        RETURNING generation
                        """, logger: logger).decode(String.self).first { _ in true }
                }
                updateHolding(on: statements.connection) { held in
                    held.generation = generation
                    held.version = 0
                }
                return SharedChanges(rows: [], version: 0, complete: true)
            }
            guard owner == scenario else {
                throw StateStoreError("\(name): holds the world of scenario \"\(owner.prefix(200))\", not \"\(scenario.prefix(200))\"; start with that scenario, or use another database")
            }
            var sameWorld = false
            updateHolding(on: statements.connection) { held in
                held.version = current
                sameWorld = held.generation == generation
                held.generation = generation
            }
            if version == current, sameWorld { return SharedChanges(rows: [], version: current, complete: false) }
            let complete = version < 0 || version < removalsKeptAfter || version > current || !sameWorld
            let changes = try await statements.run(within: complete ? Self.bulkDeadline : Self.statementDeadline) { connection in
                let rows = complete
                    ? try await connection.query(
                        "SELECT section, key, value FROM mock_appleid_rows WHERE tenant = \(tenant) AND value IS NOT NULL", logger: logger)
                    : try await connection.query(
                        "SELECT section, key, value FROM mock_appleid_rows WHERE tenant = \(tenant) AND version > \(version)", logger: logger)
                var changes: [WorldRowChange] = []
                for try await (section, key, value) in rows.decode((String, String, String?).self) {
                    changes.append(WorldRowChange(section: section, key: key, value: value))
                }
                return changes
            }
            return SharedChanges(rows: changes, version: current, complete: complete)
        }
    }

    /// The world's row: its scenario, version, the oldest version whose removals are kept, and its generation.
    private static func world(_ tenant: String, on connection: PostgresConnection, logger: Logger) async throws -> (String, Int64, Int64, String)? {
        try await connection.query(
            "SELECT scenario, version, removals_kept_after, generation FROM mock_appleid_worlds WHERE tenant = \(tenant)", logger: logger
        ).decode((String, Int64, Int64, String).self).first { _ in true }
    }

    public func release(writing changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) -> Int64 {
        let held = holding.withLock { $0.version }
        guard !changes.isEmpty || replacingAll else {
            let logger = logger
            _ = try await inTransaction("cannot be written", opening: false) { statements in
                try await statements.run { connection in try await connection.query("COMMIT", logger: logger) }
            }
            holding.withLock { $0.inTransaction = false }
            return held
        }
        let version = held + 1
        let purge = version % Self.removalsKept == 0
        // One step: the whole world, many rows or large ones (or a purge) may take the database a while; a few small
        // rows, as most requests write, do not.
        let bulk = replacingAll || purge || changes.count > Self.bulkRows
            || changes.reduce(0) { $0 + ($1.value?.utf8.count ?? 0) } > Self.bulkBytes
        let written = changes.filter { $0.value != nil }
        let removed = changes.filter { $0.value == nil }
        let removalsKeptAfter = purge ? version - Self.removalsKept : -1
        let announce = replacingAll || changes.contains(where: \.wakesNotificationSender)
        let (tenant, logger, announcement) = (tenant, logger, announcement)
        try await inTransaction("cannot be written", opening: false) { statements in
            try await statements.run(within: bulk ? Self.bulkDeadline : Self.statementDeadline) { connection in
                if replacingAll {
                    try await connection.query(
                        "UPDATE mock_appleid_rows SET value = NULL, version = \(version) WHERE tenant = \(tenant) AND value IS NOT NULL",
                        logger: logger)
                }
                try await connection.query("""
                    WITH written AS (
                        INSERT INTO mock_appleid_rows (tenant, section, key, value, version)
                        SELECT \(tenant), section, key, value, \(version)
                        FROM unnest(\(written.map(\.section))::text[], \(written.map(\.key))::text[], \(written.map { $0.value ?? "" })::text[]) AS t(section, key, value)
                        ON CONFLICT (tenant, section, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version
                    ), removed AS (
                        UPDATE mock_appleid_rows SET value = NULL, version = \(version)
                        WHERE tenant = \(tenant) AND (section, key) IN (SELECT * FROM unnest(\(removed.map(\.section))::text[], \(removed.map(\.key))::text[]))
                    )
                    UPDATE mock_appleid_worlds SET version = \(version),
                        removals_kept_after = GREATEST(removals_kept_after, \(removalsKeptAfter))
                    WHERE tenant = \(tenant)
                    """, logger: logger)
                if purge {
                    try await connection.query(
                        "DELETE FROM mock_appleid_rows WHERE tenant = \(tenant) AND value IS NULL AND version <= \(removalsKeptAfter)",
                        logger: logger)
                }
                if announce {
                    // Delivered to the listening sender at the commit, and only if it commits.
                    try await connection.query("SELECT pg_notify(\(Self.senderChannel), \(announcement))", logger: logger)
                }
                try await connection.query("COMMIT", logger: logger)
            }
        }
        holding.withLock { held in
            held.version = version
            held.inTransaction = false
        }
        return version
    }

    /// The connector's refusal while it backs off, for a hold that would have to connect: a store whose
    /// connection is open (this world's, while another tenant's was lost) still tries it.
    public var unavailable: StateStoreError? {
        let connected = holding.withLock { held in held.connection.map { !$0.isClosed } ?? false }
        return connected ? nil : connector.unavailable
    }

    public func lead() async {
        // Logged once per run of failures: while the database is down this loop tries twice a second.
        var failing = false
        while !Task.isCancelled, !holding.withLock({ $0.closed }) {
            do {
                let connection = try await leadingConnection()
                let (tenant, logger) = (tenant, logger)
                let won = try await DatabaseStep.run(within: Self.statementDeadline, grace: .zero, on: connection) {
                    try await connection.query(
                        "SELECT pg_try_advisory_lock(hashtext('mock-appleid sender ' || \(tenant)))", logger: logger
                    ).decode(Bool.self).first { _ in true }
                }
                if won == true { return }
                failing = false
            } catch {
                await dropLeadingConnection()
                if Task.isCancelled { return }
                if !failing { logger.notice("\(name): cannot try to lead: \(PostgresStore.describe(error))") }
                failing = true
            }
            do { try await Task.sleep(for: Self.leadRetry) } catch { return }
        }
    }

    public func watchSenderWork(_ wake: @escaping @Sendable () -> Void) async {
        guard let connection = leading.withLock({ $0 }) else { return }
        await senderListener.listen(on: connection, storeName: name, started: wake) { payload in
            if payload != announcement, Self.tenant(announcedIn: payload) == tenant { wake() }
        }
    }

    /// The tenant a write's announcement names: what follows the writing store's id and a space.
    static func tenant(announcedIn payload: String) -> String? {
        payload.firstIndex(of: " ").map { String(payload[payload.index(after: $0)...]) }
    }

    public func stillLeading() async -> Bool {
        guard let connection = leading.withLock({ $0 }) else { return false }
        do {
            try await DatabaseStep.ping(connection, within: Self.statementDeadline, logger: logger)
            return true
        } catch {
            await dropLeadingConnection()
            return false
        }
    }

    /// Closes both connections for good (a hold under way fails).
    func close() async {
        let connections: [PostgresConnection?] = [
            holding.withLock { held in
                held.closed = true
                defer { held.connection = nil }
                return held.connection
            },
            leading.withLock { connection in defer { connection = nil }; return connection },
        ]
        for connection in connections.compactMap({ $0 }) { try? await connection.close() }
    }

    // MARK: Connections

    /// Changes what the open hold took, unless `connection` is no longer the holds' connection (its step
    /// was abandoned at its deadline, and what it read must not count).
    private func updateHolding(on connection: PostgresConnection, _ change: (inout Holding) -> Void) {
        holding.withLock { held in
            if held.connection === connection { change(&held) }
        }
    }

    /// A hold's statements, each run on its connection within its own deadline (``statementDeadline`` unless
    /// said otherwise).
    private struct HoldStatements: Sendable {
        let connection: PostgresConnection

        @discardableResult
        func run<R: Sendable>(within deadline: Duration = PostgresWorldStore.statementDeadline,
                              _ statement: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
            let connection = connection
            return try await DatabaseStep.run(within: deadline, grace: DatabaseStep.holdGrace, on: connection) { try await statement(connection) }
        }
    }

    /// Runs `body` on the holds' connection: when `opening` a hold, opened when missing, and its transaction
    /// begun; otherwise the connection whose transaction the hold opened, which must still be there (a write on
    /// another would be made without the lock). On failure the transaction is rolled back by closing the
    /// connection, and the error names the store; a connection that stopped answering, or closed, also has the
    /// connector back off (requests are then refused at once while the database is tried again).
    private func inTransaction<T: Sendable>(_ doing: String, opening: Bool,
                                            _ body: (HoldStatements) async throws -> T) async throws(StateStoreError) -> T {
        var used: PostgresConnection?
        do {
            let held = holding.withLock { $0 }
            let connection: PostgresConnection
            if held.closed {
                throw StateStoreError("\(name): the world is no longer kept here")
            } else if opening, held.inTransaction {
                throw StateStoreError("\(name): a hold is under way on this store already; give each provider a store of its own")
            } else if let open = held.connection, !open.isClosed, opening || held.inTransaction {
                connection = open
            } else if opening {
                connection = try await connector.connect()
                let kept = holding.withLock { held in
                    if !held.closed { held.connection = connection }
                    return !held.closed
                }
                guard kept else {
                    try? await connection.close()
                    throw StateStoreError("\(name): the world is no longer kept here")
                }
            } else {
                throw StateStoreError("\(name): the connection holding the shared world was lost; the change was not written")
            }
            used = connection
            let statements = HoldStatements(connection: connection)
            if opening {
                // Read committed, whatever the server's default: each statement then sees what committed before it
                // started, so the reads after the lock see the last holder's writes.
                let logger = logger
                _ = try await statements.run { connection in try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger) }
                updateHolding(on: connection) { $0.inTransaction = true }
            }
            return try await body(statements)
        } catch {
            let lost = error is DatabaseStep.TimedOut || error is DatabaseStep.ConnectionClosed || used?.isClosed == true
            let broken = holding.withLock { held in
                held.inTransaction = false
                defer { held.connection = nil }
                return held.connection
            }
            try? await broken?.close()
            if let error = error as? StateStoreError { throw error }
            let reason = PostgresStore.describe(error)
            if lost { connector.lost(reason) }
            throw StateStoreError("\(name): the shared world \(doing): \(reason)")
        }
    }

    private func leadingConnection() async throws -> PostgresConnection {
        if let open = leading.withLock({ $0 }), !open.isClosed { return open }
        let connection = try await connector.connect()
        // Stored first, then checked: either this or a concurrent close() takes it back and closes it.
        leading.withLock { $0 = connection }
        guard !holding.withLock({ $0.closed }) else {
            await dropLeadingConnection()
            throw StateStoreError("\(name): the world is no longer kept here")
        }
        return connection
    }

    private func dropLeadingConnection() async {
        let connection = leading.withLock { connection in defer { connection = nil }; return connection }
        try? await connection?.close()
    }
}
