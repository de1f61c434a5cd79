import Foundation
import Logging
import MockAppleID
import PostgresNIO
import Synchronization

/// A PostgreSQL database that several servers share (`serve --database-url`): it holds their world
/// (``PostgresWorldStore``) in tables of its own, made on first use, beside whatever else the
/// database holds.
public final class PostgresStore: TenantStore {
    /// The database's address, without its password.
    public var name: String { connector.address.name }
    /// The server's own world.
    public let world: PostgresWorldStore
    /// Every connection of the store, its tenants' included, backing off together while the database is down.
    private let connector: PostgresConnector
    private let logger: Logger
    /// The tenants' worlds this server keeps here, to close their connections.
    private let tenantWorlds = Mutex<[String: PostgresWorldStore]>([:])
    /// The channel a server announces on, at its commit, that it added or removed a tenant.
    static let tenantsChannel = "mock_appleid_tenants"
    /// Listens there (the registry listens again every second when listening ended).
    private let tenantsListener: ChannelListener

    /// The tables' format; a database written by a newer version is refused. Format 2 is format 1 with
    /// each refresh grant's place in its persona and client's issue order kept in the grant, and not
    /// the index of their tokens: an earlier version must not write to it. Format 1's index rows are
    /// read as the order of the grants without a place, so moving up needs no rows changed.
    static let format = 2

    private init(address: PostgresAddress, logger: Logger) {
        self.logger = logger
        self.connector = PostgresConnector(address: address, logger: logger)
        self.tenantsListener = ChannelListener(channel: Self.tenantsChannel, subject: "other servers' tenants", logger: logger)
        self.world = PostgresWorldStore(connector: connector, tenant: "", logger: logger)
    }

    /// Connects to the database at `url` and makes the tables when they are missing. An address that
    /// cannot be read or reached, or tables of a newer version, are refused with an error that names it.
    public static func open(url: String, logger: Logger = Logger(label: "mock-appleid.postgres")) async throws(StateStoreError) -> PostgresStore {
        let store = PostgresStore(address: try PostgresAddress(url), logger: logger)
        try await store.prepare()
        return store
    }

    /// Closes the store's connections.
    public func close() async {
        let worlds = tenantWorlds.withLock { worlds in defer { worlds = [:] }; return Array(worlds.values) }
        for store in [world] + worlds { await store.close() }
    }

    // MARK: Tenants

    public var isShared: Bool { true }

    public func tenants() async throws(StateStoreError) -> [TenantRecord] {
        try await withConnection("cannot be read") { [self] connection in
            var records: [TenantRecord] = []
            for try await (tenant, record) in try await connection.query(
                "SELECT name, record FROM mock_appleid_tenants ORDER BY added", logger: logger).decode((String, String).self) {
                guard let decoded = try? JSONDecoder().decode(TenantRecord.self, from: Data(record.utf8)) else {
                    throw StateStoreError("\(name): tenant \(tenant.prefix(80)) cannot be read")
                }
                records.append(decoded)
            }
            return records
        }
    }

    public func addTenant(_ tenant: TenantRecord) async throws(StateStoreError) {
        let record: String
        do { record = String(decoding: try JSONEncoder().encode(tenant), as: UTF8.self) } catch {
            throw StateStoreError("\(name): tenant \(tenant.name) cannot be encoded: \(error)")
        }
        try await withConnection("cannot be written") { [self] connection in
            try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
            let added = try await connection.query("""
                INSERT INTO mock_appleid_tenants (name, record) VALUES (\(tenant.name), \(record)) ON CONFLICT (name) DO NOTHING RETURNING 1
                """, logger: logger).decode(Int.self).first { _ in true }
            // Closing the connection rolls the transaction back.
            guard added != nil else { throw StateStoreError("\(name): tenant \(tenant.name) exists already") }
            try await announceTenants(on: connection)
            try await connection.query("COMMIT", logger: logger)
        }
    }

    public func forget(_ name: String) async {
        await tenantWorlds.withLock { $0.removeValue(forKey: name) }?.close()
    }

    public func removeTenant(named tenant: String) async throws(StateStoreError) {
        await forget(tenant)
        try await withConnection("cannot be written") { [self] connection in
            // Under the tenant's world lock, so no server is holding it meanwhile.
            try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('mock-appleid world ' || \(tenant)))", logger: logger)
            try await connection.query("DELETE FROM mock_appleid_rows WHERE tenant = \(tenant)", logger: logger)
            try await connection.query("DELETE FROM mock_appleid_worlds WHERE tenant = \(tenant)", logger: logger)
            try await connection.query("DELETE FROM mock_appleid_tenants WHERE name = \(tenant)", logger: logger)
            try await announceTenants(on: connection)
            try await connection.query("COMMIT", logger: logger)
        }
    }

    /// Tells the servers following the tenants (``watchTenants(_:)``) that they changed: delivered at the
    /// transaction's commit, and only if it commits.
    private func announceTenants(on connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_notify(\(Self.tenantsChannel), '')", logger: logger)
    }

    /// How often the connection that listens for the tenants is asked whether it still answers.
    static let listeningCheckInterval = Duration.seconds(30)

    /// Listens on a connection of its own for the tenants other servers add or remove, until that
    /// connection fails, or stops answering: nothing else is sent on it, so a database that went away
    /// without a word (a host lost, a fail-over) would otherwise leave it listening for ever.
    public func watchTenants(_ changed: @escaping @Sendable () -> Void) async {
        // The connector logs a database it cannot reach.
        guard let connection = try? await connector.connect() else { return }
        let (listener, name, logger) = (tenantsListener, name, logger)
        await withTaskGroup(of: Void.self) { listening in
            listening.addTask { await listener.listen(on: connection, storeName: name, started: changed) { _ in changed() } }
            listening.addTask { await Self.closeWhenSilent(connection, listener: listener, storeName: name, logger: logger) }
            await listening.next()
            listening.cancelAll()
        }
        try? await connection.close()
    }

    /// Asks `connection` every ``listeningCheckInterval`` whether it answers, and closes it when it does not
    /// answer within a step's deadline, which ends what listens on it (`listener` logs why); returns then,
    /// or once cancelled.
    private static func closeWhenSilent(_ connection: PostgresConnection, listener: ChannelListener, storeName: String,
                                        logger: Logger) async {
        while (try? await Task.sleep(for: listeningCheckInterval)) != nil {
            do {
                try await DatabaseStep.ping(connection, within: PostgresWorldStore.statementDeadline, logger: logger)
            } catch {
                if !Task.isCancelled { listener.stopped(storeName: storeName, because: describe(error)) }
                try? await connection.close()
                return
            }
        }
    }

    public func keepWorld(of provider: AppleIDProvider, tenant name: String) async throws(StateStoreError) {
        let store = PostgresWorldStore(connector: connector, tenant: name, logger: logger)
        let replaced = tenantWorlds.withLock { $0.updateValue(store, forKey: name) }
        await replaced?.close()
        try await provider.shareState(in: store)
    }

    /// Runs `body` on a connection of its own, closed afterwards; errors name the database.
    private func withConnection<T: Sendable>(_ doing: String,
                                             _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StateStoreError) -> T {
        let connection = try await connector.connect()
        do {
            let result = try await DatabaseStep.run(within: PostgresWorldStore.stepDeadline, grace: DatabaseStep.holdGrace, on: connection) {
                try await body(connection)
            }
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            if let error = error as? StateStoreError { throw error }
            throw StateStoreError("\(name): \(doing): \(Self.describe(error))")
        }
    }

    /// Makes the tables (one server at a time: concurrent `CREATE … IF NOT EXISTS` can collide) and
    /// checks their format.
    private func prepare() async throws(StateStoreError) {
        try await withConnection("its tables cannot be made") { [self] connection in
            try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('mock-appleid schema'))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS mock_appleid_format (format integer NOT NULL)", logger: logger)
            let formats = try await connection.query("SELECT format FROM mock_appleid_format", logger: logger).decode(Int.self)
            var found: Int?
            for try await format in formats { found = max(found ?? format, format) }
            if let found, found > Self.format {
                throw StateStoreError("\(name): holds tables of a newer version of mock-appleid (format \(found)); use that version")
            }
            if found == nil { try await connection.query("INSERT INTO mock_appleid_format (format) VALUES (\(Self.format))", logger: logger) }
            if let found, found < Self.format {
                try await connection.query("UPDATE mock_appleid_format SET format = \(Self.format)", logger: logger)
            }
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS mock_appleid_worlds (
                    tenant text PRIMARY KEY, scenario text NOT NULL,
                    version bigint NOT NULL, removals_kept_after bigint NOT NULL,
                    generation text NOT NULL DEFAULT gen_random_uuid()::text)
                """, logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS mock_appleid_rows (
                    tenant text NOT NULL, section text NOT NULL, key text NOT NULL, value text, version bigint NOT NULL,
                    PRIMARY KEY (tenant, section, key))
                """, logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS mock_appleid_tenants (name text PRIMARY KEY, record text NOT NULL, added bigserial)",
                logger: logger)
            try await connection.query(
                "CREATE INDEX IF NOT EXISTS mock_appleid_rows_by_version ON mock_appleid_rows (tenant, version)", logger: logger)
            try await connection.query("COMMIT", logger: logger)
        }
    }

    /// What went wrong, from PostgreSQL's own message when it sent one (PostgresNIO's description
    /// of its errors leaves the details out on purpose).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)".prefix(300).description }
        if let message = error.serverInfo?[.message] {
            return "\(message.prefix(300))\(error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")"
        }
        if let underlying = error.underlying { return "\(error.code): \("\(underlying)".prefix(300))" }
        return "\(error.code)"
    }
}
