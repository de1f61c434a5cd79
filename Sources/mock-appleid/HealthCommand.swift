import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid health`: asks a running server's `/__admin/health` and exits 0 only when it answers
/// `"status": "ok"`. A container's health check: it needs no shell, curl or Python.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 when the server answers /__admin/health with status ok (a container's health check).",
        discussion: """
            The server is --url, else $MOCK_APPLEID_URL, else http://127.0.0.1:$MOCK_APPLEID_PORT (serve's port \
            as the environment sets it), else \(ServerURLOption.defaultURL). The admin token, when the server \
            needs one, is --admin-token or $MOCK_APPLEID_ADMIN_TOKEN, as serve reads it.
            """)

    @OptionGroup var server: ServerURLOption
    @Flag(help: "Print nothing; the exit status says it all.") var quiet = false

    func run() async throws {
        let answer = try await server.withClient { try await $0.get("health") }
        guard JSONValue.parse(answer)?["status"]?.stringValue == "ok" else {
            throw CommandError("/__admin/health did not say ok: \(String(decoding: answer.prefix(300), as: UTF8.self))")
        }
        if !quiet { print(String(decoding: answer, as: UTF8.self)) }
    }
}
