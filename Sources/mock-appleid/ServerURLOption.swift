import ArgumentParser
import Foundation

/// `--url`: the running server a command drives through its admin API.
struct ServerURLOption: ParsableArguments {
    /// Where the server is when `--url` is not given and `MOCK_APPLEID_URL` is not set: `serve`'s default.
    static let defaultURL = "http://127.0.0.1:8080"

    @Option(help: "Base URL of the running server (default: $MOCK_APPLEID_URL, else \(ServerURLOption.defaultURL)).")
    var url: String?

    @Option(help: "The server's admin token, when it was started with --admin-token (default: $MOCK_APPLEID_ADMIN_TOKEN).")
    var adminToken: String?

    /// Runs `body` with a client for the chosen server.
    func withClient<Result>(_ body: (AdminClient) async throws -> Result) async throws -> Result {
        let environment = ProcessInfo.processInfo.environment
        return try await AdminClient.with(url: url ?? environment["MOCK_APPLEID_URL"] ?? Self.defaultURL,
                                          token: adminToken ?? environment["MOCK_APPLEID_ADMIN_TOKEN"], body)
    }
}
