import MockAppleID
import SQLiteNIO

/// The state file's tables and their versions. SQLite's `application_id` marks a file as a
/// mock-appleid state file, and `user_version` says which format it has: a file of an older format
/// is migrated step by step when opened, one of a newer format is refused.
enum StateFileSchema {
    /// `application_id` of a state file: "MAID" in ASCII.
    static let applicationID = 0x4D41_4944

    /// The format this version writes.
    static let currentVersion = 4

    /// Each format's step from the one before: `migrations[n - 1]` brings a file to format `n`.
    /// Format 1 is the first, made from an empty file: one world. Format 2 holds tenants beside it.
    /// Format 3 keeps each relay message and notification delivery as a row of its own. Format 4 keeps
    /// each refresh grant's place in its persona and client's issue order in the grant (`serial`), and no
    /// longer the index of their tokens, which is rebuilt from the grants.
    static let migrations: [[String]] = [
        [
            "CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID",
            """
            CREATE TABLE world_rows (section TEXT NOT NULL, key TEXT NOT NULL, value TEXT,
                                     PRIMARY KEY (section, key)) WITHOUT ROWID
            """,
            // A row written without a value is removed at once, so that one statement writes a whole
            // batch of changes and removals: one atomic step, one trip to SQLite's thread.
            """
            CREATE TRIGGER world_rows_removed_by_insert AFTER INSERT ON world_rows WHEN NEW.value IS NULL
            BEGIN DELETE FROM world_rows WHERE section = NEW.section AND key = NEW.key; END
            """,
            """
            CREATE TRIGGER world_rows_removed_by_update AFTER UPDATE OF value ON world_rows WHEN NEW.value IS NULL
            BEGIN DELETE FROM world_rows WHERE section = NEW.section AND key = NEW.key; END
            """,
        ],
        [
            // Every row gets the tenant it belongs to; the server's own world is tenant "".
            """
            CREATE TABLE world_rows_2 (tenant TEXT NOT NULL, section TEXT NOT NULL, key TEXT NOT NULL, value TEXT,
                                       PRIMARY KEY (tenant, section, key)) WITHOUT ROWID
            """,
            "INSERT INTO world_rows_2 (tenant, section, key, value) SELECT '', section, key, value FROM world_rows",
            "DROP TABLE world_rows",
            "ALTER TABLE world_rows_2 RENAME TO world_rows",
            """
            CREATE TRIGGER world_rows_removed_by_insert AFTER INSERT ON world_rows WHEN NEW.value IS NULL
            BEGIN DELETE FROM world_rows WHERE tenant = NEW.tenant AND section = NEW.section AND key = NEW.key; END
            """,
            """
            CREATE TRIGGER world_rows_removed_by_update AFTER UPDATE OF value ON world_rows WHEN NEW.value IS NULL
            BEGIN DELETE FROM world_rows WHERE tenant = NEW.tenant AND section = NEW.section AND key = NEW.key; END
            """,
            // Each tenant with the scenario it was made from (a TenantRecord as JSON), in the order added.
            "CREATE TABLE tenants (name TEXT PRIMARY KEY NOT NULL, added INTEGER NOT NULL, record TEXT NOT NULL) WITHOUT ROWID",
        ],
        splitList(section: "relay", list: "messages", into: "relayMessages")
            + splitList(section: "outbox", list: "deliveries", into: "outboxDeliveries"),
        [
            // Each grant in an index list gets its place there as a serial below zero, oldest lowest.
            """
            UPDATE world_rows SET value = json_set(world_rows.value, '$.serial', placed.position - placed.count)
            FROM (SELECT w.tenant AS tenant, m.value AS token, m.key AS position, json_array_length(w.value) AS count
                  FROM world_rows AS w, json_each(w.value) AS m WHERE w.section = 'refreshTokensByOwner') AS placed
            WHERE world_rows.section = 'refreshGrants' AND world_rows.tenant = placed.tenant AND world_rows.key = placed.token
              AND json_extract(world_rows.value, '$.serial') IS NULL
            """,
            "DELETE FROM world_rows WHERE section = 'refreshTokensByOwner'",
        ],
    ]

    /// Moves the entries of the list `list` in each world's `section` row into rows of their own in
    /// `entrySection` (key: the entry's id; value: its place in the list and the entry), and empties the list.
    private static func splitList(section: String, list: String, into entrySection: String) -> [String] {
        [
            """
            INSERT INTO world_rows (tenant, section, key, value)
            SELECT w.tenant, '\(entrySection)', json_extract(m.value, '$.id'), json_object('position', m.key, 'entry', json(m.value))
            FROM world_rows AS w, json_each(w.value, '$.\(list)') AS m
            WHERE w.section = '\(section)' AND w.key = ''
            """,
            """
            UPDATE world_rows SET value = json_set(value, '$.\(list)', json('[]'))
            WHERE section = '\(section)' AND key = '' AND json_type(value, '$.\(list)') = 'array'
            """,
        ]
    }

    /// Checks that the open file is an intact state file of a format this version reads, and brings
    /// it to ``currentVersion`` (making the tables of a new file). Throws ``StateStoreError`` for a
    /// file it refuses, SQLite's errors otherwise.
    static func prepare(_ connection: SQLiteConnection, named name: String) async throws {
        let check = try await connection.query("PRAGMA quick_check").first?.columns.first?.data.string
        guard check == "ok" else { throw StateStoreError("\(name): is damaged (SQLite's check says: \(check ?? "nothing"))") }
        let application = try await integer(connection, "PRAGMA application_id")
        let version = try await integer(connection, "PRAGMA user_version")
        let tables = try await integer(connection, "SELECT count(*) FROM sqlite_master")
        guard application == applicationID || (application == 0 && tables == 0) else {
            throw StateStoreError("\(name): is an SQLite database, but not a mock-appleid state file")
        }
        guard version >= 0 else { throw StateStoreError("\(name): is damaged (state format \(version))") }
        guard version <= currentVersion else {
            throw StateStoreError("\(name): was written by a newer mock-appleid (state format \(version); this version reads up to \(currentVersion))")
        }
        guard version < currentVersion else { return }
        try await connection.transaction {
            for step in migrations[Int(version)...] {
                for statement in step { _ = try await connection.query(statement) }
            }
            _ = try await connection.query("PRAGMA application_id = \(applicationID)")
            _ = try await connection.query("PRAGMA user_version = \(currentVersion)")
        }
    }

    private static func integer(_ connection: SQLiteConnection, _ query: String) async throws -> Int {
        try await connection.query(query).first?.columns.first?.data.integer ?? 0
    }
}

extension SQLiteConnection {
    /// Runs `work` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back when it throws.
    func transaction(_ work: () async throws -> Void) async throws {
        _ = try await query("BEGIN IMMEDIATE")
        do {
            try await work()
            _ = try await query("COMMIT")
        } catch {
            _ = try? await query("ROLLBACK")
            throw error
        }
    }
}
