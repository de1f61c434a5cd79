import Foundation
import MockAppleIDServer

/// `serve --ready-file FILE`: a machine-readable sign that the server is up, for harnesses that start it
/// and must know its ports (with `--port 0`) without reading the banner. The same JSON as
/// `/__admin/health`: `{"status":"ok","scenario":…,"listeners":{"http":{"url","host","port"},…}}`.
enum ReadyFile {
    private struct Contents: Encodable {
        let status = "ok"
        let scenario: String
        let listeners: ServerListeners
    }

    /// Writes the file whole (a temporary file renamed over it), so a reader never sees half of it. A failure
    /// is reported on standard error; the server goes on.
    static func write(_ running: RunningServer, scenario: String, to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        do {
            try encoder.encode(Contents(scenario: scenario, listeners: running.listeners)).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else { throw CommandError(String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            FileHandle.standardError.write(Data("mock-appleid: --ready-file \(path) could not be written: \(error)\n".utf8))
        }
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
}
