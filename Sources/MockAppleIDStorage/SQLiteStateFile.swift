import Foundation
import Logging
import MockAppleID
import SQLiteNIO

/// A world kept in one SQLite file: the state file of `serve --state FILE`.
///
/// One table holds the rows of ``WorldStore`` (tenant, section, key, JSON value) for the server's own
/// world (tenant "") and each tenant's; a `meta` table names the scenario the file belongs to, and a
/// `tenants` table the scenario each tenant was made from. The file is opened in WAL mode with `synchronous = NORMAL`: a
/// committed write survives the process being killed at any moment (a power cut may lose the last
/// ones), and a commit costs no `fsync`. The file is locked for as long as it is open, so a second
/// server on the same file is refused instead of corrupting it. A new file is made readable by its
/// owner only: it holds private signing keys and live tokens.
public final class SQLiteStateFile: WorldStore, TenantStore {
    /// The file's path, as given.
    public let name: String
    private let connection: SQLiteConnection
    private let serial = SerialQueue()

    private init(name: String, connection: SQLiteConnection) {
        self.name = name
        self.connection = connection
    }

    /// Opens the state file at `path`, creating it when missing, and migrates one written by an older
    /// version. A file that is not a state file, is damaged, is newer than this version, or is in use
    /// by another process is refused with an error that names it.
    public static func open(path: String, logger: Logger = Logger(label: "mock-appleid.state")) async throws(StateStoreError) -> SQLiteStateFile {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        try prepareFile(at: absolute, named: path)
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: absolute), logger: logger)
        } catch {
            throw StateStoreError("\(path): cannot be opened: \(Self.describe(error))")
        }
        let file = SQLiteStateFile(name: path, connection: connection)
        do {
            try await file.claim()
            try await file.run("cannot be opened") { try await StateFileSchema.prepare(connection, named: path) }
            try await file.useWriteAheadLog()
        } catch {
            try? await connection.close()
            throw error
        }
        return file
    }

    public func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow] {
        try await loadRows(tenant: "", scenario: scenario)
    }

    public func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) {
        try await write(tenant: "", changes, replacingAll: replacingAll)
    }

    /// The rows of one world; `scenario` (the server's own world only) is checked against the file's.
    func loadRows(tenant: String, scenario: String?) async throws(StateStoreError) -> [WorldRow] {
        try await run("cannot be read") {
            if let scenario {
                let owner = try await connection.query("SELECT value FROM meta WHERE name = 'scenario'").first?.column("value")?.string
                guard let owner else {
                    _ = try await connection.query("INSERT INTO meta (name, value) VALUES ('scenario', ?)", [.text(scenario)])
                    return []
                }
                guard owner == scenario else {
                    throw StateStoreError("\(name): holds the world of scenario \"\(owner)\", not \"\(scenario)\"; start with that scenario, or remove the file to start over")
                }
            }
            return try await connection.query("SELECT section, key, value FROM world_rows WHERE tenant = ? ORDER BY section, key",
                                              [.text(tenant)]).map { row in
                guard let section = row.column("section")?.string, let key = row.column("key")?.string,
                      let value = row.column("value")?.string else {
                    throw StateStoreError("\(name): a row is not text: \(row)")
                }
                return WorldRow(section: section, key: key, value: value)
            }
        }
    }

    /// Writes one world's batch. A batch that fits one statement is written by that statement alone
    /// (atomic by itself: a row without a value is removed by the table's trigger); a larger one, or
    /// one replacing every row, in a transaction.
    func write(tenant: String, _ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) {
        try await run("cannot be written") {
            let chunks = Self.chunks(of: replacingAll ? changes.filter { $0.value != nil } : changes)
            guard replacingAll || chunks.count > 1 else {
                if let chunk = chunks.first { try await upsert(chunk, tenant: tenant) }
                return
            }
            try await connection.transaction {
                if replacingAll { _ = try await connection.query("DELETE FROM world_rows WHERE tenant = ?", [.text(tenant)]) }
                for chunk in chunks { try await upsert(chunk, tenant: tenant) }
            }
        }
    }

    private func upsert(_ chunk: ArraySlice<WorldRowChange>, tenant: String) async throws {
        let values = Array(repeating: "(?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
        _ = try await connection.query(
            "INSERT INTO world_rows (tenant, section, key, value) VALUES \(values) ON CONFLICT (tenant, section, key) DO UPDATE SET value = excluded.value",
            chunk.flatMap { [.text(tenant), .text($0.section), .text($0.key), $0.value.map(SQLiteData.text) ?? .null] })
    }

    // MARK: Tenants

    public func tenants() async throws(StateStoreError) -> [TenantRecord] {
        try await run("cannot be read") {
            try await connection.query("SELECT name, record FROM tenants ORDER BY added").map { row in
                guard let record = row.column("record")?.string,
                      let tenant = try? JSONDecoder().decode(TenantRecord.self, from: Data(record.utf8)) else {
                    throw StateStoreError("\(name): tenant \(row.column("name")?.string ?? "?") cannot be read")
                }
                return tenant
            }
        }
    }

    public func addTenant(_ tenant: TenantRecord) async throws(StateStoreError) {
        let record: String
        do { record = String(decoding: try JSONEncoder().encode(tenant), as: UTF8.self) } catch {
            throw StateStoreError("\(name): tenant \(tenant.name) cannot be encoded: \(error)")
        }
        try await run("cannot be written") {
            _ = try await connection.query(
                "INSERT INTO tenants (name, added, record) VALUES (?, (SELECT coalesce(max(added), 0) + 1 FROM tenants), ?)",
                [.text(tenant.name), .text(record)])
        }
    }

    public func removeTenant(named tenant: String) async throws(StateStoreError) {
        try await run("cannot be written") {
            try await connection.transaction {
                _ = try await connection.query("DELETE FROM world_rows WHERE tenant = ?", [.text(tenant)])
                _ = try await connection.query("DELETE FROM tenants WHERE name = ?", [.text(tenant)])
            }
        }
    }

    public func keepWorld(of provider: AppleIDProvider, tenant name: String) async throws(StateStoreError) {
        try await provider.keepState(in: world(ofTenant: name))
    }

    /// The store of one tenant's world.
    func world(ofTenant tenant: String) -> any WorldStore { TenantWorld(file: self, tenant: tenant) }

    /// One tenant's world in the file.
    private struct TenantWorld: WorldStore {
        let file: SQLiteStateFile
        let tenant: String

        var name: String { "\(file.name) (tenant \(tenant))" }

        func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow] {
            try await file.loadRows(tenant: tenant, scenario: nil)
        }

        func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError) {
            try await file.write(tenant: tenant, changes, replacingAll: replacingAll)
        }
    }

    /// Closes the file (and its lock).
    public func close() async {
        try? await connection.close()
    }

    /// Takes the file's lock for as long as it is open (changing nothing in it).
    private func claim() async throws(StateStoreError) {
        try await run("cannot be opened") {
            // SQLiteNIO's busy handler retries for ever; a second server must be refused instead.
            _ = try await connection.query("PRAGMA busy_timeout = 1000")
            _ = try await connection.query("PRAGMA locking_mode = EXCLUSIVE")
            do {
                _ = try await connection.query("BEGIN EXCLUSIVE")
                _ = try await connection.query("COMMIT")
            } catch let error as SQLiteError where [.busy, .locked, .busyTimeout].contains(error.reason) {
                throw StateStoreError("\(name): is in use by another process (another mock-appleid?)")
            }
        }
    }

    /// Turns on write-ahead logging (kept in the file), once the file is known to be a state file.
    private func useWriteAheadLog() async throws(StateStoreError) {
        try await run("cannot be opened") {
            let mode = try await connection.query("PRAGMA journal_mode = WAL").first?.columns.first?.data.string
            guard mode?.lowercased() == "wal" else {
                throw StateStoreError("\(name): SQLite cannot keep it in write-ahead-log mode (journal mode: \(mode ?? "none"))")
            }
            _ = try await connection.query("PRAGMA synchronous = NORMAL")
        }
    }

    /// Runs `work` when no other work on the file is running, turning SQLite's errors into ones that name the file.
    private func run<T>(_ failure: String, _ work: () async throws -> T) async throws(StateStoreError) -> T {
        do {
            return try await serial.run(work)
        } catch let error as StateStoreError {
            throw error
        } catch {
            throw StateStoreError("\(name): \(failure): \(Self.describe(error))")
        }
    }

    /// Makes a missing file, readable by its owner only; refuses a folder or a missing parent folder.
    private static func prepareFile(at path: String, named name: String) throws(StateStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw StateStoreError("\(name): is a folder, not a state file") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StateStoreError("\(name): its folder \(parent) does not exist")
        }
        // O_EXCL: of two servers starting at once on a new path, one makes the file and both then open that same file.
        let descriptor = Foundation.open(path, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        if descriptor >= 0 {
            try? FileHandle(fileDescriptor: descriptor).close()
        } else if errno != EEXIST {
            throw StateStoreError("\(name): cannot be created in \(parent): \(String(cString: strerror(errno)))")
        }
    }

    private static func chunks(of changes: [WorldRowChange]) -> [ArraySlice<WorldRowChange>] {
        stride(from: 0, to: changes.count, by: rowsPerStatement).map { changes[$0 ..< min($0 + rowsPerStatement, changes.count)] }
    }

    /// Rows written by one statement (four parameters each: 20,000 in all, well below SQLite's limit).
    private static let rowsPerStatement = 5_000

    static func describe(_ error: any Error) -> String {
        if let error = error as? SQLiteError {
            return error.reason == .notADatabase ? "not a state file (SQLite: \(error.message))" : error.message
        }
        return String(describing: error)
    }
}
