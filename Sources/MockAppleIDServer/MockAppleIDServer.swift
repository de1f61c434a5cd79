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
    /// The tenants (`/t/<name>/…`), made through `POST /__admin/tenants` or ``TenantRegistry/create(_:)``;
    /// nil for a tenant's own server.
    public let tenants: TenantRegistry?
    /// Where the server listens, once every listener is bound (shared with its tenants' routes).
    let listeners: BoundListeners
    /// The `/auth/keys` bodies, shared by the routes and the listeners' shortcut.
    let keySetBodies: KeySetBodies
    let logger: Logger
    let onRunning: @Sendable (RunningServer) async -> Void

    /// A server for `provider`; `onRunning` is told the bound address once it listens. With
    /// `tenantStore`, tenants are kept in it and made again at start.
    public init(
        provider: AppleIDProvider, configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil,
        tenantStore: (any TenantStore)? = nil, onRunning: @escaping @Sendable (RunningServer) async -> Void = { _ in }
    ) {
        self.init(provider: provider, configuration: configuration, logger: logger, servesTenants: true,
                  tenantStore: tenantStore, onRunning: onRunning)
    }

    init(provider: AppleIDProvider, configuration: ServerConfiguration, logger: Logger?, servesTenants: Bool,
         tenantStore: (any TenantStore)? = nil, listeners: BoundListeners = BoundListeners(),
         onRunning: @escaping @Sendable (RunningServer) async -> Void = { _ in }) {
        self.provider = provider
        self.configuration = configuration
        self.listeners = listeners
        self.keySetBodies = KeySetBodies(provider: provider)
        var log = logger ?? Logger(label: "mock-appleid")
        log.logLevel = configuration.logLevel
        self.logger = log
        self.onRunning = onRunning
        self.tenants = servesTenants
            ? TenantRegistry(scenario: provider.scenario, configuration: configuration, store: tenantStore, listeners: listeners, logger: log) : nil
    }

    /// Every route behind the server's first stop (``ServerResponder``), for in-memory tests
    /// (`HummingbirdTesting`'s `Application(router:)`).
    public func makeRouter() -> ServerRouter { makeRouter(scheme: "http") }

    /// The routes for a listener whose URLs start with `scheme` (`http` or `https`).
    func makeRouter(scheme: String) -> ServerRouter {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let table = RouteTable()
        let recording = RecordingRouter(router: router, table: table)
        let saving = SavedBeforeAnswering(provider: provider, maxBodySize: configuration.maxBodySize)
        AppleRoutes(provider: provider, configuration: configuration, scheme: scheme, keySetBodies: keySetBodies)
            .register(on: recording, saving: saving)
        AdminRoutes(provider: provider, configuration: configuration, tenants: tenants, listeners: listeners)
            .register(on: recording, saving: saving)
        CDNRoutes().register(on: recording)
        return ServerRouter(router: router, table: table,
                            adminGuard: AdminGuard(token: configuration.adminToken, hostNames: configuration.adminHostNames),
                            tenants: tenants, scheme: scheme)
    }

    private func makeApplication(scheme: String, port: Int, server: HTTPServerBuilder,
                                 bound: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        Application(
            router: makeRouter(scheme: scheme),
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: port),
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.connections.maxConnections, logger: logger)),
            onServerRunning: { channel in await bound(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Serves until graceful shutdown (or cancellation); the HTTPS listener (when configured), the
    /// clock driver, the request log, the notification sender and, when configured, the relay's
    /// SMTP listener and upstream forwarding run beside the HTTP listener and stop with it.
    /// `onRunning` is called once every listener is bound.
    public func run() async throws {
        if !ReturnURLPolicy.isLoopback(configuration.host) {
            logger.warning("listening on \(configuration.host), reachable from other hosts; the admin API \(configuration.adminToken == nil ? "answers loopback clients only (set an admin token to open it)" : "answers any client with the admin token")")
        }
        let tls = try configuration.https.map { try TLSServerIdentity($0) }
        var smtp: SMTPListener?
        if let port = configuration.smtpPort {
            smtp = try await ListenerFailure.naming("the SMTP relay", host: configuration.host, port: port) {
                try await SMTPListener.bind(provider: provider, host: configuration.host, port: port,
                                            idleTimeout: .seconds(Int64(configuration.smtpIdleTimeout)),
                                            maxConnections: configuration.smtpMaxConnections, logger: self.logger)
            }
        }
        let ports = BoundPorts(expectsHTTPS: tls != nil)
        let report: @Sendable (BoundPorts.Ready?) async -> Void = { [onRunning, configuration, tenants, listeners, smtpPort = smtp?.port] ready in
            guard let ready else { return }
            let running = RunningServer(host: configuration.host, port: ready.http, publicBaseURL: configuration.publicBaseURL,
                                        smtpPort: smtpPort, httpsPort: ready.https, certificateAuthority: tls?.authority,
                                        tenantNames: tenants?.all.map(\.name) ?? [])
            listeners.set(ServerListeners(running))
            await onRunning(running)
        }
        let limits = configuration.connections
        let keySet = KeySetShortcut(provider: provider, bodies: keySetBodies)
        let http = makeApplication(scheme: "http", port: configuration.port,
                                   server: .guardedHTTP1(limits: limits, maxBodySize: configuration.maxBodySize, keySet: keySet)) { port in
            await report(await ports.bound(http: port))
        }
        let https = tls.map { tls in
            makeApplication(scheme: "https", port: tls.port,
                            server: .guardedHTTPS(limits: limits, maxBodySize: configuration.maxBodySize, tlsContext: tls.context,
                                                  keySet: keySet)) { port in
                await report(await ports.bound(https: port))
            }
        }
        let events = provider.world.events
        let logger = self.logger
        do {
            try await tenants?.restore()
            try await serve(http: http, https: https, smtp: smtp, events: events, logger: logger)
        } catch {
            await tenants?.shutdown()
            throw error
        }
        await tenants?.shutdown()
    }

    /// Runs the listeners and the side jobs as one service group: graceful shutdown stops the listeners
    /// first (HTTP answers what it has started), then the relay, the tenants' jobs, the request log, the
    /// notification sender (attempts under way end) and the clock driver.
    private func serve(http: some ApplicationProtocol, https: (some ApplicationProtocol)?, smtp: SMTPListener?,
                       events: EventLog, logger: Logger) async throws {
        // Each named: without a name, the group describes a service by reflecting over all it holds, which
        // costs the start-up a scan of every protocol conformance in the binary.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ClockDriver(provider: provider), serviceName: "clock driver"),
            .init(service: NotificationSender(provider: provider, logger: logger), serviceName: "notification sender"),
        ]
        if configuration.accessLog || logger.logLevel <= .debug {
            services.append(.init(service: RequestLog(events: events, logger: logger, accessLog: configuration.accessLog), serviceName: "request log"))
        }
        if let tenants {
            services.append(.init(service: tenants.jobs, serviceName: "tenants' jobs"))
            if tenants.store?.isShared == true { services.append(.init(service: TenantFollower(tenants: tenants), serviceName: "tenant follower")) }
        }
        if let upstream = configuration.relayForward {
            services.append(.init(service: RelayForwarder(provider: provider, upstream: (upstream.host, upstream.port), logger: logger),
                                  serviceName: "relay forwarder"))
        }
        if let smtp { services.append(.init(service: smtp, serviceName: "SMTP listener")) }
        services.append(.init(service: NamedListener(listener: http, name: "HTTP", host: configuration.host, port: configuration.port),
                              serviceName: "HTTP listener"))
        if let https, let port = configuration.https?.port {
            services.append(.init(service: NamedListener(listener: https, name: "HTTPS", host: configuration.host, port: port),
                                  serviceName: "HTTPS listener"))
        }
        var group = ServiceGroupConfiguration(services: services, logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(configuration.connections.shutdownTimeout)
        group.maximumCancellationDuration = .seconds(configuration.connections.shutdownTimeout)
        try await ServiceGroup(configuration: group).run()
    }

    /// A service group running this server: `run()` it, and end it with `triggerGracefulShutdown()`.
    /// With `handlesSignals`, SIGINT and SIGTERM end it too. Graceful shutdown lasts at most
    /// ``ConnectionLimits/shutdownTimeout`` seconds; connections still open then are cut.
    public func makeServiceGroup(handlesSignals: Bool = false) -> ServiceGroup {
        // Named here: without a name, the group describes the server by reflecting over all it holds.
        var group = ServiceGroupConfiguration(
            services: [.init(service: self, serviceName: "mock-appleid")],
            gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: logger)
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
    /// The HTTPS listener's bound port, when it listens.
    public let httpsPort: Int?
    /// The CA that issued the HTTPS listener's certificate (nil without HTTPS, or with a certificate
    /// brought from files): what a client must trust.
    public let certificateAuthority: LocalCertificateAuthority?
    /// The tenants serving when the listeners were bound (those a state file brought back).
    public let tenantNames: [String]

    /// Every listener's URL, host and port (what `/__admin/health` and `serve --ready-file` report).
    public var listeners: ServerListeners { ServerListeners(self) }

    init(host: String, port: Int, publicBaseURL: String?, smtpPort: Int? = nil, httpsPort: Int? = nil,
         certificateAuthority: LocalCertificateAuthority? = nil, tenantNames: [String] = []) {
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL
        self.smtpPort = smtpPort
        self.httpsPort = httpsPort
        self.certificateAuthority = certificateAuthority
        self.tenantNames = tenantNames
    }

    /// `http://host:port`, or the configured public base URL.
    public var baseURL: String {
        if let publicBaseURL { return publicBaseURL }
        let bracketed = host.contains(":" as Character) ? "[\(host)]" : host
        return "http://\(bracketed):\(port)"
    }

    /// The HTTPS listener as `host` (Apple's by default; `localhost` also matches the certificate),
    /// without a port when it is 443; nil without HTTPS.
    public func httpsBaseURL(host: String = AppleHostNames.identity) -> String? {
        guard let httpsPort else { return nil }
        return httpsPort == 443 ? "https://\(host)" : "https://\(host):\(httpsPort)"
    }
}

/// The ports the listeners bound, gathered until every one has.
private actor BoundPorts {
    /// Every listener's port.
    struct Ready: Sendable {
        let http: Int
        let https: Int?
    }

    private let expectsHTTPS: Bool
    private var http: Int?
    private var https: Int?

    init(expectsHTTPS: Bool) { self.expectsHTTPS = expectsHTTPS }

    /// Records the HTTP port; every port when this completes the set, else nil.
    func bound(http port: Int) -> Ready? {
        http = port
        return https != nil || !expectsHTTPS ? Ready(http: port, https: https) : nil
    }

    /// Records the HTTPS port; every port when this completes the set, else nil.
    func bound(https port: Int) -> Ready? {
        https = port
        return http.map { Ready(http: $0, https: port) }
    }
}
