import Foundation
import Logging
import MockAppleID
import MockAppleIDServer
import ServiceLifecycle

/// A mock-appleid server running inside a Swift test (on 127.0.0.1 and a free port unless told otherwise).
///
/// ```swift
/// try await MockAppleIDTestServer.withRunning { server in
///     myRelyingParty.appleBaseURL = server.baseURL
///     let signIn = try await server.signIn(persona: "jane")
///     server.clock.advance(by: 301)   // codes have now expired
/// }
/// ```
public struct MockAppleIDTestServer: Sendable {
    /// The provider behind the server: personas, auto-approve, journal, reset.
    public let provider: AppleIDProvider
    /// `http://127.0.0.1:<port>`.
    public let baseURL: String
    public let port: Int
    /// The private relay's SMTP port, when started with `smtp: true`.
    public let smtpPort: Int?
    /// `https://localhost:<port>` when started with `https: true` (the certificate also names
    /// `appleid.apple.com` and `appleid.cdn-apple.com`).
    public let httpsBaseURL: String?
    /// The temporary CA behind ``httpsBaseURL``: trust it with `clientTLSConfiguration()` (AsyncHTTPClient)
    /// or `certificateDER` (`SecCertificate`, URLSession).
    public let certificateAuthority: LocalCertificateAuthority?
    /// Signs client secrets for the scenario's relying party (the built-in developer key by default).
    public let clientSecret: ClientSecret

    /// The one clock of the server: set, freeze and advance it from the test.
    public var clock: MockClock { provider.clock }

    /// Starts a server for `scenario` (the built-in default when nil), runs `body`, then stops it
    /// gracefully. `clock` lets a test start from a fixed instant (e.g. `.manual(at:)`).
    /// `clientSecret` is needed for a custom scenario whose keys are not the built-in ones. `smtp`
    /// also starts the private relay's SMTP listener on a free port (``smtpPort``); `https` an HTTPS
    /// listener with a temporary CA (``httpsBaseURL``, ``certificateAuthority``). `port` 0 takes a free port.
    public static func withRunning<T: Sendable>(
        scenario: Scenario? = nil, clock: MockClock? = nil, clientSecret: ClientSecret? = nil,
        logLevel: Logger.Level = .warning, smtp: Bool = false, https: Bool = false, host: String = "127.0.0.1", port: Int = 0,
        _ body: @Sendable (MockAppleIDTestServer) async throws -> T
    ) async throws -> T {
        let provider = try AppleIDProvider(scenario: scenario ?? BuiltInScenario.load(), clock: clock)
        let signer = try clientSecret ?? defaultClientSecret()
        let (started, continuation) = AsyncStream.makeStream(of: RunningServer.self)
        var configuration = ServerConfiguration(host: host, port: port, logLevel: logLevel)
        configuration.smtpPort = smtp ? 0 : nil
        configuration.https = https ? HTTPSConfiguration(port: 0, identity: .temporaryCA) : nil
        configuration.adminRoutes = [AuditAdminRoute.make()]
        let server = MockAppleIDServer(provider: provider, configuration: configuration) {
            running in continuation.yield(running)
        }
        let serviceGroup = server.makeServiceGroup()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { continuation.finish() }
                try await serviceGroup.run()
            }
            guard let running = await started.first(where: { _ in true }) else {
                try await group.waitForAll()
                throw TestServerError.didNotStart
            }
            let handle = MockAppleIDTestServer(provider: provider, baseURL: running.baseURL, port: running.port,
                                               smtpPort: running.smtpPort, httpsBaseURL: running.httpsBaseURL(host: "localhost"),
                                               certificateAuthority: running.certificateAuthority, clientSecret: signer)
            let result: Result<T, any Error>
            do { result = .success(try await body(handle)) } catch { result = .failure(error) }
            await serviceGroup.triggerGracefulShutdown()
            try await group.waitForAll()
            return try result.get()
        }
    }

    /// The built-in scenario's relying-party key (`Keys/AuthKey_MOCKKEY001.p8`).
    public static func defaultClientSecret() throws -> ClientSecret {
        let key = BuiltInScenario.developerKey
        guard let pem = BuiltInScenario.keyFile(named: key.fileName) else { throw TestServerError.missingDeveloperKey }
        return try ClientSecret(teamID: key.teamID, keyID: key.keyID, privateKeyPEM: pem)
    }

    /// A valid `client_secret` for `clientID` at the server's current time.
    public func secret(for clientID: String) throws -> String {
        try clientSecret.make(clientID: clientID, issuedAt: clock.now)
    }
}

/// Why the test server could not be used.
public struct TestServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Hashable {
        case didNotStart
        case missingDeveloperKey
    }

    /// Which of them.
    let base: Base

    public static var didNotStart: Self { Self(base: .didNotStart) }
    public static var missingDeveloperKey: Self { Self(base: .missingDeveloperKey) }

    public var description: String {
        switch base {
        case .didNotStart: return "the mock-appleid server did not start"
        case .missingDeveloperKey: return "the built-in developer key is missing"
        }
    }
}
