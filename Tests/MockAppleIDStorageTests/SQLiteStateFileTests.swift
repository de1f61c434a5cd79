import Foundation
import MockAppleID
import MockAppleIDStorage
import SQLiteNIO
import Testing

/// The SQLite state file (`serve --state`) on its own: one server at a time, one scenario per file, and every file
/// that cannot be used refused with an error naming it.
@Suite("SQLite state file")
struct SQLiteStateFileTests {
    /// A provider over the built-in scenario (renamed by `name`).
    static func provider(named name: String? = nil) throws -> AppleIDProvider {
        var scenario = try BuiltInScenario.load()
        if let name { scenario.name = name }
        return try AppleIDProvider(scenario: scenario)
    }

    /// A new empty folder for one test's files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mock-appleid-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a file another server holds is refused, and so is one of another scenario")
    func inUseAndOtherScenario() async throws {
        let path = try Self.folder().appendingPathComponent("world.sqlite").path
        let file = try await SQLiteStateFile.open(path: path)
        try await Self.provider().keepState(in: file)
        let inUse = await #expect(throws: StateStoreError.self) { _ = try await SQLiteStateFile.open(path: path) }
        #expect(inUse?.message == "\(path): is in use by another process (another mock-appleid?)")
        await file.close()

        let other = try Self.provider(named: "checkout-tests")
        let reopened = try await SQLiteStateFile.open(path: path)
        let mismatch = await #expect(throws: StateStoreError.self) { try await other.keepState(in: reopened) }
        #expect(mismatch?.message.hasPrefix("\(path): holds the world of scenario \"default\", not \"checkout-tests\"") == true)
        await reopened.close()
    }

    @Test("a file that is not a state file, is damaged, comes from another program or a newer version, or has no folder, is refused by name")
    func unusableFiles() async throws {
        let folder = try Self.folder()
        func refusal(_ path: String) async -> String? {
            await #expect(throws: StateStoreError.self) { _ = try await SQLiteStateFile.open(path: path) }?.message
        }

        let text = folder.appendingPathComponent("notes.txt").path
        try Data(String(repeating: "not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        #expect(await refusal(text)?.hasPrefix("\(text): cannot be opened: not a state file") == true)

        let foreign = folder.appendingPathComponent("other.sqlite").path
        let connection = try await SQLiteConnection.open(storage: .file(path: foreign))
        _ = try await connection.query("CREATE TABLE songs (title TEXT)")
        try await connection.close()
        #expect(await refusal(foreign) == "\(foreign): is an SQLite database, but not a mock-appleid state file")
        let untouched = try await SQLiteConnection.open(storage: .file(path: foreign))
        #expect(try await untouched.query("PRAGMA journal_mode").first?.columns.first?.data.string == "delete")
        try await untouched.close()

        let newer = folder.appendingPathComponent("newer.sqlite").path
        let file = try await SQLiteStateFile.open(path: newer)
        await file.close()
        let raw = try await SQLiteConnection.open(storage: .file(path: newer))
        _ = try await raw.query("PRAGMA user_version = 7")
        try await raw.close()
        #expect(await refusal(newer) == "\(newer): was written by a newer mock-appleid (state format 7; this version reads up to 4)")

        let damaged = folder.appendingPathComponent("damaged.sqlite").path
        let good = try await SQLiteStateFile.open(path: damaged)
        try await Self.provider().keepState(in: good)
        await good.close()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.seek(toOffset: 4096 + 8)
        handle.write(Data(repeating: 0xA5, count: 2048))
        try handle.close()
        let message = await refusal(damaged)
        #expect(message?.hasPrefix("\(damaged): ") == true)
        #expect(message.map { $0.contains("damaged") || $0.contains("malformed") } == true)

        #expect(await refusal(folder.path) == "\(folder.path): is a folder, not a state file")
        let orphan = folder.appendingPathComponent("missing/world.sqlite").path
        #expect(await refusal(orphan) == "\(orphan): its folder \(folder.appendingPathComponent("missing").path) does not exist")
    }
}
