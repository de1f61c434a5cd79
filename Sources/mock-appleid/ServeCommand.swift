import ArgumentParser
import Foundation
import Logging
import MockAppleID
import MockAppleIDServer
import MockAppleIDStorage

/// `mock-appleid serve`: runs the server until Ctrl-C.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Start the server (Ctrl-C stops it gracefully).")

    @Option(help: "Interface to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free port and prints it.") var port = 8080
    @OptionGroup var scenario: ScenarioOption
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
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

    @Flag(help: "Log every request to Apple's endpoints (otherwise only at --log-level debug); the journal keeps them either way.")
    var accessLog = false
    @Option(help: "Open the admin API to every client that sends Authorization: Bearer TOKEN (without it, loopback clients only).")
    var adminToken: String?
    @OptionGroup var tls: TLSOptions
    @Option(help: "Seconds a keep-alive connection may wait for its next request.") var idleTimeout = ConnectionLimits().idleTimeout
    @Option(help: "Seconds from a request's first byte to the end of its headers.") var headerTimeout = ConnectionLimits().headerTimeout
    @Option(help: "Seconds from the end of a request's headers to the end of its body.") var bodyTimeout = ConnectionLimits().bodyTimeout
    @Option(help: "HTTP connections served at once; more wait until one closes.") var maxConnections = ConnectionLimits().maxConnections

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel) is not one of trace, debug, info, notice, warning, error, critical")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let smtpPort, !(0...65535).contains(smtpPort) { throw ValidationError("--smtp-port must be 0...65535") }
        let upstream = try relayForward.map { try RelayUpstream($0).orThrow(ValidationError("--relay-forward must be HOST:PORT")) }
        if upstream != nil, smtpPort == nil { throw ValidationError("--relay-forward needs --smtp-port: it forwards what the relay's SMTP listener takes") }
        let loaded = try scenario.load()
        let provider: AppleIDProvider
        do { provider = try AppleIDProvider(scenario: loaded) } catch { throw CommandError(error.description) }
        if state != nil, databaseURL != nil { throw ValidationError("--state and --database-url cannot be used together: a world is kept in one place") }
        let stateFile: (file: SQLiteStateFile, restored: Bool)?
        if let state { stateFile = try await keepState(of: provider, in: state) } else { stateFile = nil }
        let database: (store: PostgresStore, restored: Bool)?
        if let databaseURL { database = try await shareState(of: provider, in: databaseURL) } else { database = nil }
        if let autoApprove {
            let parts = autoApprove.split(separator: ":", maxSplits: 1).map(String.init)
            let choice = try parts.count > 1 ? EmailChoice(rawValue: parts[1]).orThrow(ValidationError("--auto-approve choice must be share or hide")) : nil
            // In a hold of a shared world, so the change is made to the latest state and written.
            let set: Result<Void, PersonaError>
            do throws(StateStoreError) {
                set = try await provider.world.hold { Result { () throws(PersonaError) in
                    try provider.setAutoApprove(AutoApprove(persona: parts.first ?? "", emailChoice: choice))
                } }
            } catch {
                throw CommandError("--auto-approve: \(error.message)")
            }
            do { try set.get() } catch { throw CommandError("--auto-approve: \(error.description)") }
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var configuration = ServerConfiguration(host: host, port: port, publicBaseURL: publicBaseURL, logLevel: level)
        configuration.smtpPort = smtpPort
        configuration.connections = try connectionLimits()
        configuration.accessLog = accessLog
        if let adminToken {
            guard (16...256).contains(adminToken.utf8.count), adminToken.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw ValidationError("--admin-token must be 16 to 256 printable ASCII characters without spaces")
            }
            configuration.adminToken = adminToken
        }
        configuration.relayForward = upstream
        configuration.https = try tls.configuration()
        let source = scenario.scenario ?? BuiltInScenario.fileName
        let server = MockAppleIDServer(provider: provider, configuration: configuration, tenantStore: stateFile?.file ?? database?.store) { running in
            let banner = StartupBanner(provider: provider, running: running, scenarioSource: source, relayForward: relayForward,
                                       adminTokenRequired: adminToken != nil,
                                       stateFile: stateFile.map { (state ?? "", $0.restored) },
                                       sharedStore: database.map { ($0.store.name, $0.restored) }).text
            FileHandle.standardOutput.write(Data((banner + "\n").utf8))
        }
        do {
            try await server.makeServiceGroup(handlesSignals: true).run()
        } catch {
            try? await closeState(of: provider, stateFile?.file)
            try? await closeDatabase(of: provider, database?.store)
            throw error
        }
        try await closeState(of: provider, stateFile?.file)
        try await closeDatabase(of: provider, database?.store)
    }

    /// Connects to the database and joins the world it holds (or saves the scenario's start in it).
    private func shareState(of provider: AppleIDProvider, in url: String) async throws -> (store: PostgresStore, restored: Bool) {
        do throws(StateStoreError) {
            let store = try await PostgresStore.open(url: url)
            do throws(StateStoreError) {
                return (store, try await provider.shareState(in: store.world))
            } catch {
                await store.close()
                throw error
            }
        } catch {
            throw CommandError("--database-url: \(error.message)")
        }
    }

    /// Writes what is pending and closes the database's connections.
    private func closeDatabase(of provider: AppleIDProvider, _ store: PostgresStore?) async throws {
        guard let store else { return }
        var failure: StateStoreError?
        do throws(StateStoreError) { try await provider.stopKeepingState() } catch { failure = error }
        await store.close()
        if let failure { throw CommandError("--database-url: the last changes were not saved: \(failure.message)") }
    }

    /// Opens the state file and restores the world from it (or saves the scenario's start in a new one).
    private func keepState(of provider: AppleIDProvider, in path: String) async throws -> (file: SQLiteStateFile, restored: Bool) {
        do throws(StateStoreError) {
            let file = try await SQLiteStateFile.open(path: path)
            do throws(StateStoreError) {
                return (file, try await provider.keepState(in: file))
            } catch {
                await file.close()
                throw error
            }
        } catch {
            throw CommandError("--state: \(error.message)")
        }
    }

    /// Saves what is pending and closes the state file; a write that failed is an error (exit 1).
    private func closeState(of provider: AppleIDProvider, _ file: SQLiteStateFile?) async throws {
        guard let file else { return }
        do throws(StateStoreError) { try await provider.stopKeepingState() } catch {
            await file.close()
            throw CommandError("--state: the last changes were not saved: \(error.message)")
        }
        await file.close()
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
