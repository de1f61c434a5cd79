import ArgumentParser
import Foundation
import Logging
import MockAppleID
import MockAppleIDAudit
import MockAppleIDServer
import MockAppleIDStorage
import MockAppleIDTesting

/// `mock-appleid serve`: runs the server until Ctrl-C.
struct ServeCommand: AsyncParsableCommand {
    // Named under its super-command, so that parsed alone (runAlone) its errors say `mock-appleid serve`, and
    // the argument parser skips its look for a completion-script request (two more parses of the command
    // line: about 2 ms of every start).
    static let configuration = CommandConfiguration(
        commandName: "serve", _superCommandName: "mock-appleid", abstract: "Start the server (Ctrl-C stops it gracefully).",
        discussion: """
            Every flag can also be set by an environment variable, as containers are configured: --NAME is \
            \(EnvironmentOptions.prefix)NAME in upper case with _ for - (\(EnvironmentOptions.prefix)PORT=9000 is --port 9000; \
            \(EnvironmentOptions.prefix)ACCESS_LOG=true is --access-log). The command line wins; an empty variable is unset. \
            \(EnvironmentOptions.prefix)TLS_DIR is the local CA's folder whether or not HTTPS is served.
            """)

    @Option(help: "Interface to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free port and prints it.") var port = 8080
    @OptionGroup var scenario: ScenarioOption
    @Option(help: ArgumentHelp("Log level: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")) var logLevel = "info"
    @Option(help: "Base URL the discovery document advertises (default: from each request's Host header).")
    var publicBaseURL: String?
    @Option(help: ArgumentHelp("Keep the world in this SQLite file: restored from it at start, every change saved in it before it is acknowledged. Without it, memory only.", valueName: "file"))
    var state: String?
    @Option(help: ArgumentHelp("Keep the world in this PostgreSQL database, shared with every server started with the same URL (postgres://user:password@host:port/database, optionally ?sslmode=require or verify-full). Not with --state.", valueName: "url"))
    var databaseURL: String?
    @Option(help: "Headless mode: approve every authorization as PERSONA, optionally PERSONA:share or PERSONA:hide.")
    var autoApprove: String?
    @Option(help: "Port of the private relay's SMTP listener (on --host); 0 picks a free port and prints it. Without it, no SMTP.")
    var smtpPort: Int?
    @Option(help: "HOST:PORT of an SMTP server (a mail catcher) every message the relay takes is forwarded to, to the persona's own address.")
    var relayForward: String?
    @Option(help: "Seconds an SMTP connection may stay silent before the relay closes it with 421 (RFC 5321 asks for at least 300).")
    var smtpIdleTimeout = ServerConfiguration().smtpIdleTimeout
    @Option(help: "SMTP connections served at once; more are told 421 and closed.")
    var smtpMaxConnections = ServerConfiguration().smtpMaxConnections

    @Option(help: ArgumentHelp("Once every listener is bound, write this JSON file (atomically): status, scenario and each listener's url, host and port, as /__admin/health says. Removed when the server stops.", valueName: "file"))
    var readyFile: String?
    @Flag(help: "Log every request to Apple's endpoints (otherwise only at --log-level debug); the journal keeps them either way.")
    var accessLog = false
    @Option(help: "Open the admin API to every client that sends Authorization: Bearer TOKEN (without it, loopback clients only).")
    var adminToken: String?
    @Option(help: ArgumentHelp("Read --admin-token from the first line of this file (a container's secret).", valueName: "file"))
    var adminTokenFile: String?
    @Option(help: ArgumentHelp("The addresses POST /__admin/audit may send requests to: \(AuditTargets.syntax). Link-local and cloud-metadata addresses never.", valueName: "targets"))
    var auditTargets = AuditTargets.loopbackAndPrivate.description
    @OptionGroup var tls: TLSOptions
    @Option(help: "Seconds a keep-alive connection may wait for its next request.") var idleTimeout = ConnectionLimits().idleTimeout
    @Option(help: "Seconds from a request's first byte to the end of its headers.") var headerTimeout = ConnectionLimits().headerTimeout
    @Option(help: "Seconds from the end of a request's headers to the end of its body.") var bodyTimeout = ConnectionLimits().bodyTimeout
    @Option(help: "HTTP connections served at once; more wait until one closes.") var maxConnections = ConnectionLimits().maxConnections
    @Option(help: ArgumentHelp("What makes RS256 signatures: libcrypto (the system's OpenSSL 3), swift-crypto (built in), or auto (the faster of the two on this machine, timed on the first RS256 key; swift-crypto where libcrypto cannot be loaded).", valueName: (["auto"] + RSASigning.Library.allCases.map(\.rawValue)).joined(separator: "|")))
    var rsaSigner = "auto"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel) is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let smtpPort, !(0...65535).contains(smtpPort) { throw ValidationError("--smtp-port must be 0...65535") }
        guard ConnectionLimits.timeoutRange.contains(smtpIdleTimeout) else {
            throw ValidationError("--smtp-idle-timeout must be \(ConnectionLimits.timeoutRange.lowerBound)...\(ConnectionLimits.timeoutRange.upperBound) seconds")
        }
        guard (1...10_000).contains(smtpMaxConnections) else { throw ValidationError("--smtp-max-connections must be 1...10000") }
        try chooseRSASigner()
        let upstream = try relayForward.map { try RelayUpstream($0).orThrow(ValidationError("--relay-forward must be HOST:PORT")) }
        if upstream != nil, smtpPort == nil { throw ValidationError("--relay-forward needs --smtp-port: it forwards what the relay's SMTP listener takes") }
        // The admin token and HTTPS's flags are checked, and the CA's certificates exported, before any store is
        // opened or changed.
        if adminToken != nil, adminTokenFile != nil { throw ValidationError("--admin-token and --admin-token-file cannot be used together") }
        let adminToken = try self.adminToken ?? adminTokenFile.map(AdminTokenFile.read)
        // 0x21–0x7E: what an HTTP client can send in `Authorization: Bearer` (a control character would lock the admin API).
        if let adminToken, !(16...256).contains(adminToken.utf8.count) || !adminToken.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw ValidationError("--admin-token must be 16 to 256 printable ASCII characters without spaces")
        }
        let auditTargets: AuditTargets
        do { auditTargets = try AuditTargets(parsing: self.auditTargets) } catch { throw ValidationError("--\(error.description)") }
        let https = try tls.configuration()
        try tls.exportCertificates(https)
        let loaded = try scenario.load()
        let provider: AppleIDProvider
        do { provider = try AppleIDProvider(scenario: loaded) } catch { throw CommandError(error.description) }
        if state != nil, databaseURL != nil { throw ValidationError("--state and --database-url cannot be used together: a world is kept in one place") }
        let stateFile: (store: SQLiteStateFile, restored: Bool)?
        if let state {
            stateFile = try await keep(provider, flag: "--state", open: { () throws(StateStoreError) in try await SQLiteStateFile.open(path: state) },
                                       attach: { file throws(StateStoreError) in try await provider.keepState(in: file) }, close: { await $0.close() })
        } else {
            stateFile = nil
        }
        let database: (store: PostgresStore, restored: Bool)?
        if let databaseURL {
            database = try await keep(provider, flag: "--database-url", open: { () throws(StateStoreError) in try await PostgresStore.open(url: databaseURL) },
                                      attach: { store throws(StateStoreError) in try await provider.shareState(in: store.world) }, close: { await $0.close() })
        } else {
            database = nil
        }
        if let autoApprove {
            let parts = autoApprove.split(separator: ":", maxSplits: 1).map(String.init)
            let choice = try parts.count > 1 ? EmailChoice(rawValue: parts[1]).orThrow(ValidationError("--auto-approve choice must be share or hide")) : nil
            // In a hold of a shared world, so the change is made to the latest state and written.
            let set: Result<Void, PersonaError>
            do throws(StateStoreError) {
                set = try await provider.performSideJob { Result { () throws(PersonaError) in
                    try provider.setAutoApprove(AutoApprove(persona: parts.first ?? "", emailChoice: choice))
                } }
            } catch {
                throw CommandError("--auto-approve: \(error.message)")
            }
            do { try set.get() } catch { throw CommandError("--auto-approve: \(error.description)") }
        }
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, level: level) }
        var configuration = ServerConfiguration(host: host, port: port, publicBaseURL: publicBaseURL, logLevel: level)
        configuration.smtpPort = smtpPort
        configuration.smtpIdleTimeout = smtpIdleTimeout
        configuration.smtpMaxConnections = smtpMaxConnections
        configuration.connections = try connectionLimits()
        configuration.accessLog = accessLog
        configuration.adminToken = adminToken
        configuration.adminRoutes = [AuditAdminRoute.make(targets: auditTargets)]
        configuration.relayForward = upstream
        configuration.https = https
        let source = scenario.scenario ?? BuiltInScenario.fileName
        let tlsFloor = configuration.https?.minimumVersion ?? .default
        let readyFile = self.readyFile.map(TLSOptions.absolute)
        let server = MockAppleIDServer(provider: provider, configuration: configuration, tenantStore: stateFile?.store ?? database?.store) { running in
            if let readyFile { ReadyFile.write(running, scenario: provider.scenario, to: readyFile) }
            // In a task of its own: Hummingbird takes its first connection only once this closure returns.
            Task {
                let banner = StartupBanner(provider: provider, running: running, scenarioSource: source,
                                           relayForward: relayForward, adminTokenRequired: adminToken != nil,
                                           stateFile: stateFile.map { ($0.store.name, $0.restored) },
                                           sharedStore: database.map { ($0.store.name, $0.restored) },
                                           tlsMinimumVersion: tlsFloor).text
                FileHandle.standardOutput.write(Data((banner + "\n").utf8))
            }
        }
        // The one store the world is kept in, if any: closed at the end.
        let kept: KeptStore? = stateFile.map { file in ("--state", { await file.store.close() }) }
            ?? database.map { database in ("--database-url", { await database.store.close() }) }
        defer { if let readyFile { ReadyFile.remove(readyFile) } }
        do {
            try await server.makeServiceGroup(handlesSignals: true).run()
        } catch {
            try? await release(provider, kept)
            throw error
        }
        try await release(provider, kept)
    }

    /// A store the world is kept in: the flag that named it, and how to close it.
    private typealias KeptStore = (flag: String, close: @Sendable () async -> Void)

    /// Opens the store `flag` names and keeps the world in it: restored from it, or the scenario's start
    /// saved in a new one. Returns the store and whether it held a world; errors name the flag.
    private func keep<Store>(_ provider: AppleIDProvider, flag: String, open: () async throws(StateStoreError) -> Store,
                             attach: (Store) async throws(StateStoreError) -> Bool,
                             close: (Store) async -> Void) async throws -> (store: Store, restored: Bool) {
        do throws(StateStoreError) {
            let store = try await open()
            do throws(StateStoreError) {
                return (store, try await attach(store))
            } catch {
                await close(store)
                throw error
            }
        } catch {
            throw CommandError("\(flag): \(error.message)")
        }
    }

    /// Saves what is pending and closes the store the world is kept in (nothing when it is in memory
    /// only); a write that failed is an error (exit 1).
    private func release(_ provider: AppleIDProvider, _ kept: KeptStore?) async throws {
        guard let kept else { return }
        var failure: StateStoreError?
        do throws(StateStoreError) { try await provider.stopKeepingState() } catch { failure = error }
        await kept.close()
        if let failure { throw CommandError("\(kept.flag): the last changes were not saved: \(failure.message)") }
    }

    /// Settles the RS256 library before the scenario's keys are read. Named, each key keeps the one it was
    /// read with; automatically, each key is given to libcrypto on a background thread when it first signs
    /// (libcrypto itself is loaded then, and timed against swift-crypto on the first key: a notice says which
    /// is faster, and that one signs), so that start-up neither waits nor competes for it; each key signs with
    /// swift-crypto until its copy is ready.
    private func chooseRSASigner() throws {
        guard rsaSigner != "auto" else { return RSASigning.readyLibcryptoInBackground() }
        guard let library = RSASigning.Library(rawValue: rsaSigner) else {
            throw ValidationError("--rsa-signer must be auto, libcrypto or swift-crypto")
        }
        do { try RSASigning.use(library) } catch { throw CommandError("--rsa-signer: \(error.description)") }
    }

    private func connectionLimits() throws -> ConnectionLimits {
        var limits = ConnectionLimits()
        for (flag, value) in [("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout)]
        where !ConnectionLimits.timeoutRange.contains(value) {
            throw ValidationError("\(flag) must be \(ConnectionLimits.timeoutRange.lowerBound)...\(ConnectionLimits.timeoutRange.upperBound) seconds")
        }
        guard ConnectionLimits.connectionRange.contains(maxConnections) else {
            throw ValidationError("--max-connections must be \(ConnectionLimits.connectionRange.lowerBound)...\(ConnectionLimits.connectionRange.upperBound)")
        }
        limits.idleTimeout = idleTimeout
        limits.headerTimeout = headerTimeout
        limits.bodyTimeout = bodyTimeout
        limits.maxConnections = maxConnections
        return limits
    }
}

extension ServeCommand {
    /// Flags that cannot be used together (run() refuses such pairs): a variable for one side gives way when
    /// the command line names the other.
    static let exclusiveFlags: [EnvironmentOptions.Exclusion] = [
        (["admin-token"], ["admin-token-file"]), (["state"], ["database-url"]),
        (["tls-dir"], ["tls-cert", "tls-key"]), (["tls-export-dir"], ["tls-cert", "tls-key"]),
    ]

    /// `mock-appleid serve …` parsed as the one command it is, without building the whole command tree
    /// (CI suites start the server many times; the tree is most of the argument parser's start-up).
    /// False, having done nothing, for any other command line and for one `serve` does not take, which
    /// the full parser then answers (help and errors word the command as `mock-appleid serve`).
    /// The flags given by `MOCK_APPLEID_*` variables (``EnvironmentOptions``) come before the command line's.
    static func runAlone(_ arguments: [String]) async -> Bool {
        guard arguments.count >= 2, arguments[1] == configuration.commandName,
              !arguments.contains(where: { ["-h", "--help", "help", "--generate-completion-script", "--experimental-dump-help"].contains($0) })
        else { return false }
        let given = Array(arguments.dropFirst(2))
        var settings: [EnvironmentOptions.Setting] = []
        do {
            let environment = ProcessInfo.processInfo.environment
            if EnvironmentOptions.isUsed(in: environment) {
                settings = try EnvironmentOptions.settings(for: EnvironmentOptions.flags(of: ServeCommand.self), environment: environment,
                                                           arguments: given, exclusive: exclusiveFlags)
            }
            let parsed: ParsableCommand
            do { parsed = try parseAsRoot(settings.flatMap(\.arguments) + given) } catch where settings.isEmpty { return false }
            guard let command = parsed as? ServeCommand else { return false }
            try await command.run()
        } catch {
            if !settings.isEmpty { FileHandle.standardError.write(Data(("mock-appleid serve: " + EnvironmentOptions.describe(settings) + "\n").utf8)) }
            MockAppleIDCommand.exit(withError: error)
        }
        return true
    }
}
