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
        let chosen = try url ?? Self.nonEmpty(environment["MOCK_APPLEID_URL"]) ?? Self.local(port: Self.nonEmpty(environment["MOCK_APPLEID_PORT"]))
        return try await AdminClient.with(url: chosen ?? Self.defaultURL, token: try Self.adminToken(given: adminToken), body)
    }

    /// `http://127.0.0.1:PORT` for `$MOCK_APPLEID_PORT`; one that is not a port 1–65535 is refused rather than
    /// passed over (the command would otherwise ask another server, on the default port).
    private static func local(port: String?) throws -> String? {
        guard let port else { return nil }
        guard let number = Int(port), (1...65535).contains(number) else {
            throw CommandError("MOCK_APPLEID_PORT=\(port.prefix(20)) is not a port 1–65535 the server listens on; give --url or MOCK_APPLEID_URL")
        }
        return "http://127.0.0.1:\(number)"
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
