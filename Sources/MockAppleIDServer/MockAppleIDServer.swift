import Hummingbird
import HummingbirdCore
import Logging
import MockAppleID
import ServiceLifecycle

/// The HTTP server: Apple's endpoints and the admin API over one ``AppleIDProvider``, with the
/// services that run beside them (the clock driver, the request log, the notification sender). A swift-service-lifecycle
/// `Service`: run it in a `ServiceGroup` (or with ``makeServiceGroup(handlesSignals:)``); graceful
/// shutdown lets in-flight requests finish.
///
/// ```swift
/// let provider = try AppleIDProvider(scenario: try BuiltInScenario.load())
/// let server = MockAppleIDServer(provider: provider, configuration: ServerConfiguration(port: 0)) { running in
///     print(running.baseURL)
/// }
/// try await server.makeServiceGroup(handlesSignals: true).run()
/// ```
public struct MockAppleIDServer: Service {
    public let provider: AppleIDProvider
    public let configuration: ServerConfiguration
    let logger: Logger
    let onRunning: @Sendable (RunningServer) async -> Void

    /// A server for `provider`; `onRunning` is told the bound address once it listens.
    public init(
        provider: AppleIDProvider, configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil,
        onRunning: @escaping @Sendable (RunningServer) async -> Void = { _ in }
    ) {
        self.provider = provider
        self.configuration = configuration
        var log = logger ?? Logger(label: "mock-appleid")
        log.logLevel = configuration.logLevel
        self.logger = log
        self.onRunning = onRunning
    }

    /// The router with every route, for in-memory tests (`HummingbirdTesting`'s `.router`).
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let table = RouteTable()
        router.add(middleware: MethodNotAllowedMiddleware(table: table))
        let recording = RecordingRouter(router: router, table: table)
        AppleRoutes(provider: provider, configuration: configuration).register(on: recording)
        AdminRoutes(provider: provider, configuration: configuration).register(on: recording)
        return router
    }

    /// A Hummingbird application listening as configured (Apple's endpoints and the admin API only;
    /// ``run()`` adds the clock driver, the request log and the notification sender).
    public func makeApplication() -> some ApplicationProtocol { makeApplication(smtpPort: nil) }

    private func makeApplication(smtpPort: Int?) -> some ApplicationProtocol {
        let host = configuration.host
        let publicBaseURL = configuration.publicBaseURL
        let onRunning = self.onRunning
        return Application(
            router: makeRouter(),
            server: .guardedHTTP1(limits: configuration.connections, maxBodySize: configuration.maxBodySize),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port),
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.connections.maxConnections, logger: logger)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                await onRunning(RunningServer(host: host, port: port, publicBaseURL: publicBaseURL, smtpPort: smtpPort))
            },
            logger: logger)
    }

    /// Serves until graceful shutdown (or cancellation); the clock driver, the request log, the
    /// notification sender and, when configured, the relay's SMTP listener and upstream forwarding
    /// run beside the HTTP listener and stop with it.
    public func run() async throws {
        if !ReturnURLPolicy.isLoopback(configuration.host) {
            logger.warning("listening on \(configuration.host), reachable from other hosts; the admin API \(configuration.adminToken == nil ? "answers loopback clients only (set an admin token to open it)" : "answers any client with the admin token")")
        }
        var smtp: SMTPListener?
        if let port = configuration.smtpPort {
            smtp = try await SMTPListener.bind(provider: provider, host: configuration.host, port: port,
                                               idleTimeout: .seconds(Int64(configuration.smtpIdleTimeout)),
                                               maxConnections: configuration.smtpMaxConnections, logger: logger)
        }
        let application = makeApplication(smtpPort: smtp?.port)
        let clock = provider.clock
        let events = provider.world.events
        let logger = self.logger
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.run() }
            group.addTask { await ClockDriver(clock: clock).run() }
            if configuration.accessLog || logger.logLevel <= .debug {
                group.addTask { await RequestLog(events: events, logger: logger, accessLog: configuration.accessLog).run() }
            }
            group.addTask { [provider] in await NotificationSender(provider: provider, logger: logger).run() }
            if let smtp { group.addTask { await smtp.run() } }
            if let upstream = configuration.relayForward {
                group.addTask { [provider] in
                    await RelayForwarder(provider: provider, upstream: (upstream.host, upstream.port), logger: logger).run()
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// A service group running this server: `run()` it, and end it with `triggerGracefulShutdown()`.
    /// With `handlesSignals`, SIGINT and SIGTERM end it too. Graceful shutdown lasts at most
    /// ``ConnectionLimits/shutdownTimeout`` seconds; connections still open then are cut.
    public func makeServiceGroup(handlesSignals: Bool = false) -> ServiceGroup {
        var group = ServiceGroupConfiguration(
            services: [self], gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(configuration.connections.shutdownTimeout)
        group.maximumCancellationDuration = .seconds(configuration.connections.shutdownTimeout)
        return ServiceGroup(configuration: group)
    }
}

/// Where a started server listens.
public struct RunningServer: Sendable {
    public let host: String
    /// The bound port (the chosen one when the configuration said 0).
    public let port: Int
    let publicBaseURL: String?
    /// The relay's SMTP port, when it listens.
    public let smtpPort: Int?

    /// `http://host:port`, or the configured public base URL.
    public var baseURL: String {
        if let publicBaseURL { return publicBaseURL }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "http://\(bracketed):\(port)"
    }
}
