import ArgumentParser
import Foundation

/// `--url`: the running server a command drives through its admin API.
struct ServerURLOption: ParsableArguments {
    /// Where the server is when neither `--url`, `MOCK_APPLEID_URL` nor `MOCK_APPLEID_PORT` says: `serve`'s default.
    static let defaultURL = "http://127.0.0.1:8080"

    @Option(help: "Base URL of the running server (default: $MOCK_APPLEID_URL, else http://127.0.0.1:$MOCK_APPLEID_PORT, else \(ServerURLOption.defaultURL)).")
    var url: String?

    @Option(help: "The server's admin token, when it was started with --admin-token (default: $MOCK_APPLEID_ADMIN_TOKEN, else the file $MOCK_APPLEID_ADMIN_TOKEN_FILE names).")
    var adminToken: String?

    /// Runs `body` with a client for the chosen server.
    func withClient<Result>(_ body: (AdminClient) async throws -> Result) async throws -> Result {
        let environment = ProcessInfo.processInfo.environment
        // MOCK_APPLEID_PORT is serve's --port as the environment gives it (EnvironmentOptions): in a container, where
        // serve and the command share the environment, the command finds the server with nothing more said.
        let local = environment["MOCK_APPLEID_PORT"].flatMap(Int.init).flatMap { (1...65535).contains($0) ? "http://127.0.0.1:\($0)" : nil }
        return try await AdminClient.with(url: url ?? Self.nonEmpty(environment["MOCK_APPLEID_URL"]) ?? local ?? Self.defaultURL,
                                          token: try Self.adminToken(given: adminToken), body)
    }

    /// The admin token: `given` (`--admin-token`), else `$MOCK_APPLEID_ADMIN_TOKEN`, else the file
    /// `$MOCK_APPLEID_ADMIN_TOKEN_FILE` names.
    static func adminToken(given: String?) throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        return try given ?? nonEmpty(environment["MOCK_APPLEID_ADMIN_TOKEN"])
            ?? nonEmpty(environment["MOCK_APPLEID_ADMIN_TOKEN_FILE"]).flatMap(AdminTokenFile.read)
    }

    private static func nonEmpty(_ value: String?) -> String? {
        value?.isEmpty == false ? value : nil
    }
}
