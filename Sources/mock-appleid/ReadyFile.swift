import Foundation
import MockAppleID
import MockAppleIDServer

/// `serve --ready-file FILE`: a machine-readable sign that the server is up, for harnesses that start it
/// and must know its ports (with `--port 0`) without reading the banner. What `/__admin/health` says
/// (`{"status":"ok","scenario":…,"listeners":{"http":{"url","host","port"},…}}`), and what the banner
/// tells a relying party about the scenario: each client's team (`clients`), and where each developer
/// key's `.p8` is (`developerKeys`: `file` on this machine, or `builtIn`, a file of the repository).
enum ReadyFile {
    private struct Contents: Encodable {
        let status = "ok"
        let scenario: String
        let listeners: ServerListeners
        let clients: [String: String]
        let developerKeys: [Key]
    }

    private struct Key: Encodable {
        let team: String
        let kid: String
        let revoked: Bool
        let file: String?
        let builtIn: String?
    }

    private static func contents(_ running: RunningServer, scenario: Scenario) -> Contents {
        var clients: [String: String] = [:]
        for group in scenario.groups {
            for client in group.bundleIDs + group.servicesIDs.map(\.id) { clients[client] = group.teamID }
        }
        let keys = scenario.teams.flatMap { team in
            team.developerKeys.values.sorted { $0.kid < $1.kid }.map { key in
                let location = DeveloperKeyLocation(key)
                var file: String?
                var builtIn: String?
                if case let .file(path) = location { file = path }
                if case let .builtIn(path) = location { builtIn = path }
                return Key(team: team.id, kid: key.kid, revoked: key.revoked, file: file, builtIn: builtIn)
            }
        }
        return Contents(scenario: scenario.name, listeners: running.listeners, clients: clients, developerKeys: keys)
    }

    /// Writes the file whole (a temporary file renamed over it), so a reader never sees half of it. A failure
    /// is reported on standard error; the server goes on.
    static func write(_ running: RunningServer, scenario: Scenario, to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        do {
            try encoder.encode(contents(running, scenario: scenario)).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else { throw CommandError(String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            FileHandle.standardError.write(Data("mock-appleid: --ready-file \(path) could not be written: \(error)\n".utf8))
        }
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
}
